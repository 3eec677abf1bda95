/** The longest delay the library waits for anything (a `Retry-After`, a backoff): one hour. */
export const MAX_DELAY_MS = 3_600_000

/**
 * A delay made safe to wait: at least 0, at most {@link MAX_DELAY_MS}. A server that asks for
 * `Retry-After: 9999999` (115 days) gets an hour; `setTimeout` itself fires at once past 2^31−1 ms,
 * which turned such a header into a 1 ms timer loop.
 *
 * @example
 * capDelay(9_999_999_000) // 3_600_000
 */
export function capDelay(ms: number): number {
  // NaN and negatives wait nothing.
  return ms > 0 ? Math.min(ms, MAX_DELAY_MS) : 0
}
