import type { WebSocketLike } from '../src/transport/WebSocketLike.js'

/** An in-memory WebSocket for unit tests with fake timers: the test drives open/close/messages. */
export class FakeWebSocket implements WebSocketLike {
  static instances: FakeWebSocket[] = []
  readyState = 0
  sent: string[] = []
  closed: { code?: number; reason?: string } | undefined
  terminated = false
  pings = 0
  pongListeners: Array<() => void> = []
  onopen: WebSocketLike['onopen'] = null
  onmessage: WebSocketLike['onmessage'] = null
  onclose: WebSocketLike['onclose'] = null
  onerror: WebSocketLike['onerror'] = null

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this)
  }

  send(data: string) {
    this.sent.push(data)
  }
  close(code?: number, reason?: string) {
    this.closed = { code, reason }
    this.readyState = 3
  }
  // server side
  open() {
    this.readyState = 1
    this.onopen?.({})
  }
  message(data: string) {
    this.onmessage?.({ data })
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3
    this.onclose?.({ code, reason })
  }

  static reset() {
    FakeWebSocket.instances = []
  }
  static last(): FakeWebSocket {
    return FakeWebSocket.instances[FakeWebSocket.instances.length - 1]!
  }
}

/** A fake with Node ws's ping/pong extras, for heartbeat tests. */
export class PingingFakeWebSocket extends FakeWebSocket {
  ping() {
    this.pings++
  }
  on(_event: 'pong', listener: () => void) {
    this.pongListeners.push(listener)
  }
  pong() {
    for (const listener of this.pongListeners) listener()
  }
  terminate() {
    this.terminated = true
    this.readyState = 3
  }
}
