import ky, { HTTPError, TimeoutError } from 'ky'
import { ServiceRequestError } from '../errors/ServiceRequestError.js'

/**
 * Transport settings of search requests.
 *
 * @example
 * createNotificationsClient({ config, search: { timeoutMs: 5_000, retries: 1 } })
 */
export interface SearchHttpOptions {
  /** per attempt, covering the response headers and the whole body (10,000) */
  timeoutMs?: number
  /** retries on network errors, 408, 429 and 5xx (2) */
  retries?: number
  /** custom fetch (tests, proxies, React Native polyfills) */
  fetch?: typeof fetch
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }
/** Retried statuses: 408, 429 and every 5xx (a function, so nothing runs at module load). */
const retryStatuses = () => [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)]

/** POSTs JSON and returns the parsed JSON body; every failure is a typed `ServiceRequestError`. */
export async function postJson(url: string, body: unknown, options: SearchHttpOptions & { signal?: AbortSignal | undefined }): Promise<unknown> {
  const method = 'POST'
  const fail = (code: ConstructorParameters<typeof ServiceRequestError>[0], message: string, extra: Partial<ConstructorParameters<typeof ServiceRequestError>[2]> = {}) =>
    new ServiceRequestError(code, message, { method, url, ...extra })
  const signal = options.signal
  if (signal?.aborted) throw fail('ABORTED', `Search aborted before it was sent (${url}).`, { cause: signal.reason })
  let text: string
  const json = JSON.stringify(body)
  // Looked up per call, so a fetch patched after import (mocks, polyfills) is the one used.
  const fetcher: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  // Only what fetch itself throws is a network failure; anything else is a bug and is rethrown as is.
  let transportFailure: unknown
  let received = ''
  const send = async (request: Request): Promise<Response> => {
    try {
      const response = await fetcher(request.url, { method, headers: JSON_HEADERS, body: json, signal: request.signal })
      if (!response.ok) return response
      // The body is read inside the attempt, so ky's per-attempt timeout covers it: a server that
      // trickles its body cannot hold a search (or a resume stream waiting on it) past the deadline.
      // ky gets an empty twin of the response (it only needs the status); the text is kept here.
      received = await response.text()
      return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers })
    } catch (error) {
      transportFailure = error
      throw error
    }
  }
  try {
    // ky runs the policy (timeout, retries, Retry-After, HTTP errors); the body goes straight to fetch as
    // the string we hold. Given to ky, it would become a stream in a Request that ky tees before every
    // attempt, which B7 measured as the largest cost of a search on small pages.
    await ky.post(url, {
      signal,
      timeout: options.timeoutMs ?? 10_000,
      // ky always calls it with the Request it built; its signal carries ky's timeout and the caller's abort.
      fetch: (request) => send(request as Request),
      retry: {
        limit: options.retries ?? 2,
        methods: ['post'],
        statusCodes: retryStatuses(),
        afterStatusCodes: retryStatuses(),
        maxRetryAfter: 60_000,
        backoffLimit: 5_000,
        // An abort is the caller's decision: never retried.
        shouldRetry: ({ error }) => (signal?.aborted || error.name === 'AbortError' ? false : undefined),
      },
    })
    text = received
  } catch (error) {
    if (signal?.aborted || (error as Error)?.name === 'AbortError') {
      throw fail('ABORTED', `Search aborted (${url}).`, { cause: error })
    }
    if (error instanceof HTTPError) {
      const responseText = await error.response.text().catch(() => '')
      const retryAfter = error.response.headers.get('retry-after')
      const seconds = retryAfter === null ? Number.NaN : Number(retryAfter)
      throw fail(
        'HTTP_STATUS',
        `Search failed with HTTP ${error.response.status} from ${url}${error.response.status < 500 ? '; check the parameters and the configured URL' : '; the service is failing, try again later'}.`,
        {
          status: error.response.status,
          body: parseMaybeJson(responseText),
          retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : undefined,
          cause: error,
        },
      )
    }
    if (error instanceof TimeoutError) {
      throw fail('TIMEOUT', `Search timed out after ${options.timeoutMs ?? 10_000} ms (${url}); raise search.timeoutMs or try again.`, { cause: error })
    }
    if (transportFailure === undefined || error !== transportFailure) throw error
    throw fail('NETWORK', `Search could not reach ${url}: ${(error as Error)?.message ?? String(error)}. Check the URL and the network.`, { cause: error })
  }
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw fail('INVALID_RESPONSE', `Search response from ${url} is not JSON.`, { status: 200, body: text, cause })
  }
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
