import { capDelay } from '../utils/capDelay.js'

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds (`"2"`, `"1.5"`) or an HTTP date.
 * A date names a whole second, so the wait runs to the end of that second: a retry never comes before
 * the moment the server named, whichever way its clock rounded. Capped at an hour (`capDelay`).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (header === null) return undefined
  const value = header.trim()
  if (value === '') return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return capDelay(Number(value) * 1000)
  const date = Date.parse(value)
  if (Number.isNaN(date)) return undefined
  return capDelay(date + 1000 - now)
}
