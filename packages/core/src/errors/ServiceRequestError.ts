import { ServiceError, type ServiceErrorCode } from './ServiceError.js'

const MAX_BODY_CHARS = 4096
/** A global brand, so an error of another copy of the package (ESM next to CJS) is recognised where `instanceof` says no. */
const REQUEST_BRAND = Symbol.for('solver-notifications.ServiceRequestError')

/**
 * A failed search request: carries the HTTP method, URL, status and the (truncated) response body.
 *
 * @example
 * catch (e) { if (isServiceRequestError(e) && e.status === 429) wait(e.retryAfterMs) }
 */
export class ServiceRequestError extends ServiceError {
  override readonly name: string = 'ServiceRequestError'
  readonly status: number | undefined
  readonly method: string
  readonly url: string
  /** The response body, parsed as JSON when it is JSON, truncated to 4 KiB. */
  readonly body: unknown
  readonly retryAfterMs: number | undefined
  readonly [REQUEST_BRAND] = true

  constructor(
    code: ServiceErrorCode,
    message: string,
    details: { method: string; url: string; status?: number; body?: unknown; retryAfterMs?: number; cause?: unknown },
  ) {
    super(code, message, { cause: details.cause })
    this.method = details.method
    this.url = details.url
    this.status = details.status
    this.body = truncateBody(details.body)
    this.retryAfterMs = details.retryAfterMs
  }
}

/**
 * Type guard for {@link ServiceRequestError}: narrows to its `status`, `url`, `method`, `body` and
 * `retryAfterMs`; true also for an error of another copy of the package (ESM next to CJS), where
 * `instanceof` says no.
 *
 * @example
 * catch (e) { if (isServiceRequestError(e) && e.status === 401) renewToken() }
 */
export function isServiceRequestError(value: unknown): value is ServiceRequestError {
  return value instanceof ServiceRequestError || (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[REQUEST_BRAND] === true)
}

/** Keeps error objects small: bodies of failed requests can be whole HTML pages. */
function truncateBody(body: unknown): unknown {
  if (body === undefined || body === null) return body
  if (typeof body === 'string') return body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}…` : body
  let text: string | undefined
  try {
    text = JSON.stringify(body)
  } catch {
    // A body too deep (or cyclic) to serialise is not worth keeping; the message says what was wrong.
    return '(body not shown: it cannot be serialised)'
  }
  if (text !== undefined && text.length > MAX_BODY_CHARS) return `${text.slice(0, MAX_BODY_CHARS)}…`
  return body
}
