import ky, { HTTPError, TimeoutError } from 'ky'
import { isServiceError } from '../errors/ServiceError.js'
import { ServiceRequestError } from '../errors/ServiceRequestError.js'
import { HEADER_NAME, HEADER_VALUE } from '../config/auth.js'
import { redactBody, redactCause, redactText, redactUrl } from '../utils/redactUrl.js'
import { exceedsJsonDepth } from './exceedsJsonDepth.js'
import type { AuthOptions } from '../config/auth.js'
import { parseRetryAfter } from './parseRetryAfter.js'
import { readBody } from './readBody.js'

/**
 * Transport settings of search requests.
 *
 * @example
 * createNotificationsClient({ config, search: { timeoutMs: 5_000, retries: 1 } })
 */
export interface SearchHttpOptions {
  /** per attempt, covering the response headers and the whole body, error statuses included (10,000) */
  timeoutMs?: number
  /** retries on network errors, 408, 429 and 5xx (2) */
  retries?: number
  /** decoded bytes a response body may have; a larger one is aborted with `RESPONSE_TOO_LARGE` (32 MiB) */
  maxResponseBytes?: number
  /**
   * history requests resume streams make on their own (backfills, polls) in flight at once per solver
   * endpoint (6); the rest wait, polls are spread evenly, and a `Retry-After` holds them all. An app's
   * own `search` calls are not counted.
   */
  concurrency?: number
  /** custom fetch (tests, proxies, React Native polyfills) */
  fetch?: typeof fetch
  /** credentials that change: `auth.headers` is asked before every request attempt (the client's `auth` option) */
  auth?: AuthOptions | undefined
}

/** Headers a request adds to its JSON ones, asked before every attempt (a token may be renewed between two). */
export type RequestHeaders = () => Record<string, string> | undefined | Promise<Record<string, string> | undefined>

/** The default of {@link SearchHttpOptions.maxResponseBytes}: 32 MiB, far above 100 rows of any service. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024
/** Of an error status's body only the start is kept (the error shows 4 KiB of it). */
const MAX_ERROR_BODY_BYTES = 64 * 1024
/** Nesting a response body may have; search bodies are 4 or 5 levels deep. */
const MAX_JSON_DEPTH = 64
/** Same-origin 307/308 hops followed before giving up. */
const MAX_REDIRECTS = 5

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' }
/** Retried statuses: 408, 429 and every 5xx; made on first use (nothing runs at module load), then shared by every request. */
let retried: number[] | undefined
const retryStatuses = () => (retried ??= [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)])

type Code = ConstructorParameters<typeof ServiceRequestError>[0]
type Details = Partial<ConstructorParameters<typeof ServiceRequestError>[2]>

/** POSTs JSON and returns the parsed JSON body; every failure is a typed `ServiceRequestError`. */
export async function postJson(
  url: string,
  body: unknown,
  options: SearchHttpOptions & { signal?: AbortSignal | undefined; headers?: RequestHeaders | undefined },
): Promise<unknown> {
  const method = 'POST'
  // The URL may carry a token in its query: every message and the error's `url` show it redacted.
  const shown = redactUrl(url)
  // Bodies echo what the service was sent (credentials among it): kept redacted.
  const fail = (code: Code, message: string, extra: Details = {}) =>
    new ServiceRequestError(code, message, { method, url: shown, ...extra, body: redactBody(extra.body), cause: redactCause(extra.cause) })
  const signal = options.signal
  if (signal?.aborted) throw fail('ABORTED', `Search aborted before it was sent (${shown}).`, { cause: signal.reason })
  const json = JSON.stringify(body)
  // fetch refuses URLs with credentials; `https://user:pass@host` means HTTP Basic, so it is sent as that.
  const { url: target, authorization } = splitUserinfo(url)
  const base: Record<string, string> = authorization ? { ...JSON_HEADERS, authorization } : JSON_HEADERS
  let headersPending = false
  /** The headers of one attempt: config and auth headers asked again each time; a throw is `AUTH`. */
  const headersNow = async (): Promise<Record<string, string>> => {
    if (!options.headers) return base
    let extra: Record<string, string> | undefined
    // Asked inside the attempt, so the request's deadline covers the callback too: one that never
    // answers ends the attempt as AUTH (see the TimeoutError branch), not as a stuck search.
    headersPending = true
    try {
      extra = await options.headers()
    } catch (cause) {
      throw fail('AUTH', `auth.headers failed for ${shown}: ${redactText((cause as Error)?.message ?? String(cause))}. Fix the callback (the request was not sent).`, { cause })
    } finally {
      headersPending = false
    }
    if (!extra) return base
    // Refused here as config headers are at createConfig: a line break would split the request, and
    // fetch's own refusal quotes the value (a credential) in its message.
    for (const [name, value] of Object.entries(extra)) {
      const problem = !HEADER_NAME.test(name) ? 'a name that is not an HTTP token' : typeof value !== 'string' ? `a ${typeof value} value (headers are strings)` : HEADER_VALUE.test(value) ? undefined : 'a line break (or NUL) in its value'
      if (problem) throw fail('AUTH', `auth.headers returned a header ${HEADER_NAME.test(name) ? `"${name}"` : ''} with ${problem}: refused, the request was not sent (the value is not shown). Fix the callback.`)
    }
    return { ...base, ...extra }
  }
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  // Looked up per call, so a fetch patched after import (mocks, polyfills) is the one used.
  const fetcher: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  // Only what fetch (or reading its body) throws is a network failure; anything else is a bug and is rethrown as is.
  let transportFailure: unknown
  let received = ''
  let errorText = ''
  const send = async (request: Request): Promise<Response> => {
    let response: Response
    try {
      response = await follow(request.url, request.signal, await headersNow())
      // Every body, error statuses included, is read inside the attempt, so ky's per-attempt timeout
      // covers it: a server that trickles or never ends its body cannot hold a search (or a resume
      // stream waiting on it) past the deadline.
      if (response.ok) received = await readBody(response, maxBytes, () => tooLarge(maxBytes))
      else errorText = await readBody(response, MAX_ERROR_BODY_BYTES, undefined)
    } catch (error) {
      if (!isServiceError(error)) transportFailure = error
      throw error
    }
    // A success goes to ky as it is (its body already read and kept here): ky looks at nothing but its status.
    if (response.ok) return response
    // An error status: ky gets an empty twin of the response (it only needs the status and Retry-After,
    // which is given to it in seconds, however the server wrote it); the text is kept here.
    const headers = new Headers(response.headers)
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'), Date.now())
    if (retryAfter === undefined) headers.delete('retry-after')
    else headers.set('retry-after', String(retryAfter / 1000))
    return new Response(null, { status: response.status, statusText: response.statusText, headers })
  }
  /** fetch without following redirects: only a same-origin 307/308 is followed, by hand and at most a few times. */
  const follow = async (first: string, requestSignal: AbortSignal, headers: Record<string, string>): Promise<Response> => {
    const seen = new Set<string>()
    let target = first
    for (;;) {
      seen.add(target)
      const response = await fetcher(target, { method, headers, body: json, signal: requestSignal, redirect: 'manual' })
      const redirected = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400 && response.status !== 304)
      if (!redirected) return response
      void response.body?.cancel().catch(() => undefined)
      const location = response.headers.get('location')
      let next: URL | undefined
      try {
        next = location === null ? undefined : new URL(location, target)
      } catch {
        next = undefined
      }
      const status = response.status || undefined
      if (next === undefined) {
        throw fail('REDIRECT', `Search at ${redactUrl(target)} answered with a redirect${location === null ? ' whose target the runtime hides' : ` to an invalid location`}; configure the URL the service really answers at.`, { status })
      }
      const where = redactUrl(next.href)
      if (next.origin !== new URL(target).origin) {
        throw fail('REDIRECT', `Search at ${redactUrl(target)} redirected to ${where}: a redirect to another origin (or from https to http) is never followed, so account data stays with the URLs the config names. Configure ${where} if it is right.`, { status })
      }
      if (response.status !== 307 && response.status !== 308) {
        throw fail('REDIRECT', `Search at ${redactUrl(target)} answered ${response.status} to ${where}, which would resend the search without its body; configure ${where} instead.`, { status })
      }
      if (seen.has(next.href) || seen.size > MAX_REDIRECTS) {
        throw fail('REDIRECT', `Search at ${shown} is caught in a redirect loop (${[...seen, next.href].map(redactUrl).join(' → ')}); fix the service or the configured URL.`, { status })
      }
      target = next.href
    }
  }
  const tooLarge = (limit: number) =>
    fail('RESPONSE_TOO_LARGE', `Search response from ${shown} is over maxResponseBytes (${limit} bytes, decompressed): aborted. Ask for smaller pages (size) or raise search.maxResponseBytes.`, { status: 200 })
  try {
    // ky runs the policy (timeout, retries, Retry-After, HTTP errors); the body goes straight to fetch as
    // the string we hold. Given to ky, it would become a stream in a Request that ky tees before every
    // attempt, which the search benchmark measured as the largest cost of a search on small pages.
    await ky.post(target, {
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
        // An abort is the caller's decision, and our own refusals (redirect, size) answer the same every time: never retried.
        shouldRetry: ({ error }) => (signal?.aborted || error.name === 'AbortError' || isServiceError(error) ? false : undefined),
      },
    })
  } catch (error) {
    if (isServiceError(error)) throw error
    if (signal?.aborted || (error as Error)?.name === 'AbortError') {
      throw fail('ABORTED', `Search aborted (${shown}).`, { cause: error })
    }
    if (error instanceof HTTPError) {
      const status = error.response.status
      const retryAfter = error.response.headers.get('retry-after')
      const refused = status === 401 || status === 403
      throw fail(
        refused ? 'UNAUTHORIZED' : 'HTTP_STATUS',
        refused
          ? `Search was refused with HTTP ${status} by ${shown}: credentials missing, wrong or expired. Renew them (config headers, auth.headers); the next call asks auth.headers again.`
          : `Search failed with HTTP ${status} from ${shown}${status < 500 ? '; check the parameters and the configured URL' : '; the service is failing, try again later'}.`,
        { status, body: parseMaybeJson(errorText), retryAfterMs: retryAfter === null ? undefined : Number(retryAfter) * 1000, cause: error },
      )
    }
    if (error instanceof TimeoutError && headersPending) {
      throw fail('AUTH', `auth.headers did not answer within the request deadline (${options.timeoutMs ?? 10_000} ms) for ${shown}; the request was not sent. Fix the callback.`, { cause: error })
    }
    if (error instanceof TimeoutError) {
      throw fail('TIMEOUT', `Search timed out after ${options.timeoutMs ?? 10_000} ms (${shown}); raise search.timeoutMs or try again.`, { cause: error })
    }
    if (transportFailure === undefined || error !== transportFailure) throw error
    throw fail('NETWORK', `Search could not reach ${shown}: ${redactText((error as Error)?.message ?? String(error))}. Check the URL and the network.`, { cause: error })
  }
  const parsed = parseJsonBody(received, (cause) => fail('INVALID_RESPONSE', `Search response from ${shown} is not JSON.`, { status: 200, body: received, cause }))
  if (exceedsJsonDepth(parsed, MAX_JSON_DEPTH)) {
    throw fail('INVALID_RESPONSE', `Search response from ${shown} nests deeper than ${MAX_JSON_DEPTH} levels; no search service answers like that, check the configured URL.`, { status: 200, body: received.slice(0, 200) })
  }
  return parsed
}

/** Moves `user:pass@` out of a URL into an HTTP Basic `authorization` header. */
function splitUserinfo(url: string): { url: string; authorization: string | undefined } {
  // No `@` anywhere, no userinfo: the common case skips parsing the URL on every request.
  if (!url.includes('@')) return { url, authorization: undefined }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { url, authorization: undefined }
  }
  if (parsed.username === '' && parsed.password === '') return { url, authorization: undefined }
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
  parsed.username = ''
  parsed.password = ''
  return { url: parsed.href, authorization: `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(credentials)))}` }
}

function parseJsonBody(text: string, notJson: (cause: unknown) => Error): unknown {
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw notJson(cause)
  }
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
