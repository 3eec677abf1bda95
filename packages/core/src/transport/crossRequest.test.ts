import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { record } from '@solver-notifications/test-support'
import { FakeWebSocket } from '../../test/FakeWebSocket.js'
import { errorsOf, fakeClient, statusesOf } from '../../test/fakeClient.js'

// Cloudflare Workers: a socket belongs to the request that opened it. A client kept at module scope
// and used by the next request gets workerd's error on every send; it must end at once with
// CROSS_REQUEST, not replace the socket for ever.

const account = '0xAbC0000000000000000000000000000000000001'
const WORKERD = 'Cannot perform I/O on behalf of a different request. I/O objects (such as streams, request/response bodies, and others) created in the context of one request handler cannot be accessed from a different request\'s handler.'

/** A socket that works in the request that opened it, and throws workerd's error once another request uses it. */
class RequestBoundWebSocket extends FakeWebSocket {
  static otherRequest = false
  override send(data: string) {
    if (RequestBoundWebSocket.otherRequest) throw new Error(WORKERD)
    super.send(data)
  }
}

beforeEach(() => {
  vi.useFakeTimers()
  FakeWebSocket.reset()
  RequestBoundWebSocket.otherRequest = false
})
afterEach(() => vi.useRealTimers())

it.each(['enigma', 'hub'] as const)('%s: a send from another request ends the streams with CROSS_REQUEST, once, and never re-dials', async (solverId) => {
  const c = fakeClient({ lingerMs: 0, WebSocket: RequestBoundWebSocket as never })
  const first = record(c.events({ account, solverId }))
  FakeWebSocket.last().open()
  expect(statusesOf(first.values).at(-1)?.status).toBe('open')
  // The next request: a new stream on the same hub sends a new subscribe list (enigma: a new socket's
  // subscribe frame at open), and workerd refuses the I/O.
  RequestBoundWebSocket.otherRequest = true
  const second = record(c.events({ account: '0xAbC0000000000000000000000000000000000002', solverId }))
  if (solverId === 'enigma') FakeWebSocket.last().open()
  await vi.runAllTimersAsync() // the hub's new list goes out in a microtask
  const failed = solverId === 'enigma' ? second : first
  expect(errorsOf(failed.values).map((e) => e.code)).toEqual(['CROSS_REQUEST'])
  expect(errorsOf(failed.values)[0]!.message).toMatch(/belongs to the request that opened it.*in each request.*Durable Object/)
  expect(statusesOf(failed.values).at(-1)).toMatchObject({ status: 'closed', closeReason: 'socket of another request' })
  expect(failed.completed).toBe(true)
  const dials = FakeWebSocket.instances.length
  await vi.runAllTimersAsync()
  expect(FakeWebSocket.instances).toHaveLength(dials)
  expect(c.stats().reconnects).toBe(0)
})

it('any other send failure still replaces the socket (SOCKET, reconnecting)', () => {
  class Broken extends FakeWebSocket {
    override send(): void {
      throw new Error('socket is not writable')
    }
  }
  const c = fakeClient({ lingerMs: 0, WebSocket: Broken as never })
  const events = record(c.events({ account, solverId: 'enigma' }))
  FakeWebSocket.last().open()
  expect(errorsOf(events.values).map((e) => e.code)).toEqual(['SOCKET'])
  expect(statusesOf(events.values).at(-1)?.status).toBe('reconnecting')
})
