import { once } from 'node:events'
import WebSocket from 'ws'

/**
 * The heap a relay process uses after forced collections, asked through its inspector (the process
 * runs with `--inspect=127.0.0.1:0`; `url` is the `ws://` address it printed). Collected three times
 * with a pause between (finalization registries free some wiring a task after a collection), then
 * once more, as `bench:heap` does in its own process.
 *
 * @example
 * const bytes = await heapAfterGc(inspectorUrlOf(relay.output.join('')))
 */
export async function heapAfterGc(url: string): Promise<number> {
  const socket = new WebSocket(url)
  await once(socket, 'open')
  type Answer = { id?: number; result?: { result?: { value?: unknown } }; error?: unknown }
  const waiting = new Map<number, (message: Answer) => void>()
  socket.on('message', (data: WebSocket.RawData) => {
    const message = JSON.parse(String(data)) as Answer
    if (message.id !== undefined) waiting.get(message.id)?.(message)
  })
  let next = 0
  const call = (method: string, params?: object) =>
    new Promise<Answer>((resolve) => {
      const id = ++next
      waiting.set(id, resolve)
      socket.send(JSON.stringify({ id, method, params }))
    })
  try {
    for (let i = 0; i < 3; i++) {
      await call('HeapProfiler.collectGarbage')
      await call('Runtime.evaluate', { expression: 'new Promise((resolve) => setTimeout(resolve, 100))', awaitPromise: true })
    }
    await call('HeapProfiler.collectGarbage')
    const answer = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true })
    const value = answer.result?.result?.value
    if (typeof value !== 'number') throw new Error(`the inspector at ${url} did not give the heap: ${JSON.stringify(answer).slice(0, 200)}`)
    return value
  } finally {
    socket.close()
  }
}

/** The inspector address a process printed on stderr (`Debugger listening on ws://…`). */
export function inspectorUrlOf(output: string): string {
  const match = /Debugger listening on (ws:\/\/\S+)/.exec(output)
  if (!match) throw new Error(`no inspector address in the output: ${output.slice(0, 300)}`)
  return match[1]!
}
