import { simulatorAt } from './memoryHosts.js'

/**
 * A `fetch` that reaches in-memory simulators (`startMemorySimulator`) by the host of its URL, with no
 * network: pass it as the client's `search.fetch`. Honours `signal` (an abort rejects with an
 * `AbortError`); a destroyed connection (an injected fault) rejects like a network error.
 *
 * @example
 * const client = createNotificationsClient({ config, WebSocket: MemoryWebSocket, search: { fetch: memoryFetch } })
 */
export async function memoryFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = typeof input === 'object' && 'url' in input && !(input instanceof URL) ? input : undefined
  const url = new URL(request ? request.url : String(input))
  const signal = init?.signal ?? request?.signal ?? undefined
  const aborted = () => (signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError'))
  if (signal?.aborted) throw aborted()
  const core = simulatorAt(url.host)
  if (!core) throw new TypeError(`fetch failed: no in-memory simulator at ${url.host} (started with startMemorySimulator, and not closed?)`)
  const headers: Record<string, string> = {}
  new Headers(init?.headers ?? request?.headers).forEach((value, name) => {
    headers[name] = value
  })
  const method = (init?.method ?? request?.method ?? 'GET').toUpperCase()
  const body = init?.body !== undefined && init.body !== null ? String(init.body) : request?.body ? await request.text() : ''
  const answering = core.http({ method, url: url.pathname + url.search, headers, body })
  let onAbort: (() => void) | undefined
  const answer = await (signal
    ? Promise.race([answering, new Promise<never>((_, reject) => signal.addEventListener('abort', (onAbort = () => reject(aborted())), { once: true }))]).finally(() => signal.removeEventListener('abort', onAbort!))
    : answering)
  if ('destroy' in answer) throw new TypeError('fetch failed: the simulator destroyed the connection (an injected fault)')
  const status = answer.status
  const nullBody = status === 204 || status === 304
  if (!answer.trickleMs || nullBody) return new Response(nullBody ? null : answer.body, { status, headers: answer.headers })
  // The headers at once, the body in pieces over trickleMs (a slow service).
  const encoder = new TextEncoder()
  const trickleMs = answer.trickleMs
  let done = false
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      core.faults.trickle(
        answer.body,
        trickleMs,
        (piece) => controller.enqueue(encoder.encode(piece)),
        () => {
          done = true
          controller.close()
        },
        () => done,
      )
    },
    cancel() {
      done = true
    },
  })
  return new Response(stream, { status, headers: answer.headers })
}
