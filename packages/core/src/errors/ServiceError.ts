/**
 * Every code a {@link ServiceError} can carry (the table in docs/architecture.md, "Errors").
 *
 * @example
 * if (error.code === 'UNKNOWN_SOLVER') showSolverPicker()
 */
export type ServiceErrorCode =
  | 'INVALID_CONFIG'
  | 'UNKNOWN_CHAIN'
  | 'UNKNOWN_SOLVER'
  | 'INVALID_PARAMETERS'
  | 'SEARCH_URL_NOT_CONFIGURED'
  | 'HTTP_STATUS'
  | 'NETWORK'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'INVALID_RESPONSE'
  | 'SOCKET'
  /** an adapter callback (onNotification, onStatusChange) threw; reported, the stream goes on */
  | 'CALLBACK'
  /** a resume backfill could not cover the gap within maxBackfillRows: reload the snapshot */
  | 'BACKFILL_TRUNCATED'
  /** a notification's modify_time is not plausible unix seconds; delivered, but it orders nothing */
  | 'IMPLAUSIBLE_TIMESTAMP'
  /** a resume checkpoint could not be read or written */
  | 'CHECKPOINT'
  /** a stored resume position is not plausible unix seconds; it was ignored and the stream resumes as if it had none */
  | 'INVALID_CHECKPOINT'
  /** search refused a redirect to another origin, from https to http, one that drops the body, or a loop */
  | 'REDIRECT'
  /** a quote's filled amount is not a plain decimal string: it is never compared, so that quote never settles from it */
  | 'INVALID_AMOUNT'
  /** HTTP 401/403, or a socket refused at the upgrade or closed with 1008/4001/4003 twice: renew the credentials */
  | 'UNAUTHORIZED'
  /** an `auth` callback (headers, socketUrl) threw or rejected */
  | 'AUTH'
  /** a search response body was larger than `search.maxResponseBytes` (decoded bytes) */
  | 'RESPONSE_TOO_LARGE'
  /** a `for await` loop fell more than `highWaterMark` items behind its stream; the stream was released */
  | 'SLOW_CONSUMER'
  /** Cloudflare Workers: a socket used by a request other than the one that opened it; create the client per request or in a Durable Object */
  | 'CROSS_REQUEST'

/**
 * The one error type of the library: a stable `code` to branch on and a message that says how to fix it.
 *
 * @example
 * try { createConfig(input) } catch (e) { if (e instanceof ServiceError) console.error(e.code, e.message) }
 */
/**
 * The brand every ServiceError carries: a global symbol, so an error made by another copy of this
 * package (the ESM and the CommonJS build loaded side by side, or two installed versions) is still
 * recognised, where `instanceof` would say no.
 */
const BRAND = Symbol.for('solver-notifications.ServiceError')

export class ServiceError extends Error {
  override readonly name: string = 'ServiceError'
  readonly code: ServiceErrorCode
  /** `INVALID_CONFIG`: every problem of the config, each with its path (the message lists them too). */
  readonly issues?: ReadonlyArray<{ readonly path: string; readonly message: string }>
  readonly [BRAND] = true

  constructor(code: ServiceErrorCode, message: string, options?: { cause?: unknown; issues?: ReadonlyArray<{ readonly path: string; readonly message: string }> }) {
    super(message, options)
    this.code = code
    if (options?.issues) this.issues = options.issues
  }
}

/**
 * Type guard for {@link ServiceError} (and `ServiceRequestError`), true also for errors of another copy of
 * the package (ESM next to CJS) by a global brand.
 *
 * @example
 * if (isServiceError(e) && e.code === 'ABORTED') return
 */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError || (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true)
}
