import { WebSocket } from 'ws'

/**
 * A plain `ws` client for tests: collects frames and lets a test await the n-th one (no sleeps).
 *
 * @example
 * const client = await connectTestClient(sim.wsUrl)
 * client.send({ address: [account] })
 * const frame = await client.next()
 */
export interface TestClient {
  ws: WebSocket
  messages: string[]
  send(value: unknown): void
  /** Resolves with the frame after the ones already awaited. */
  next(): Promise<string>
  /** Resolves once `count` frames have arrived in total. */
  waitFor(count: number): Promise<string[]>
  closed: Promise<{ code: number; reason: string }>
  close(): Promise<void>
}

export async function connectTestClient(url: string): Promise<TestClient> {
  const ws = new WebSocket(url)
  const messages: string[] = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  let cursor = 0
  ws.on('message', (data) => {
    messages.push(data.toString())
    for (let i = waiters.length - 1; i >= 0; i--) {
      if (messages.length >= waiters[i]!.count) waiters.splice(i, 1)[0]!.resolve()
    }
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  const waitFor = (count: number) =>
    messages.length >= count
      ? Promise.resolve(messages.slice(0, count))
      : new Promise<string[]>((resolve) => waiters.push({ count, resolve: () => resolve(messages.slice(0, count)) }))
  return {
    ws,
    messages,
    send: (value) => ws.send(typeof value === 'string' ? value : JSON.stringify(value)),
    async next() {
      const index = cursor++
      return (await waitFor(index + 1))[index]!
    },
    waitFor,
    closed,
    async close() {
      if (ws.readyState !== ws.CLOSED) {
        ws.close()
        await closed
      }
    },
  }
}
