import ReconnectingWebSocket from 'partysocket/ws'
import WS from 'ws'

/**
 * The reference of the hub benchmarks (P1–P3 in the README): what a user writes instead of this library for a rasa hub —
 * `partysocket` for reconnects, `JSON.parse`, and a hand-written account filter with the subscribe
 * list coalesced per tick. No validation, no normalization, no status, no linger.
 */
export function handWrittenHub(url: string) {
  const handlers = new Map<string, Set<(frame: unknown) => void>>()
  const socket = new ReconnectingWebSocket(url, undefined, { WebSocket: WS })
  const sendList = () => socket.send(JSON.stringify({ address: [...handlers.keys()] }))
  let queued = false
  let closed = false
  const scheduleSend = () => {
    if (queued || closed) return
    queued = true
    queueMicrotask(() => {
      queued = false
      if (!closed) sendList()
    })
  }
  socket.addEventListener('open', sendList)
  socket.addEventListener('message', (event) => {
    const frame = JSON.parse((event as MessageEvent).data as string) as { counterparty_address?: string }
    const set = handlers.get(String(frame.counterparty_address).toLowerCase())
    if (set) for (const handler of set) handler(frame)
  })
  return {
    opened: new Promise<void>((resolve) => socket.addEventListener('open', () => resolve(), { once: true })),
    subscribe(account: string, handler: (frame: unknown) => void): () => void {
      const key = account.toLowerCase()
      let set = handlers.get(key)
      if (!set) handlers.set(key, (set = new Set()))
      set.add(handler)
      scheduleSend()
      return () => {
        set.delete(handler)
        if (set.size === 0) handlers.delete(key)
        scheduleSend()
      }
    },
    close: () => {
      closed = true
      socket.close()
    },
  }
}
