/** Timestamps further ahead than this are not believed (milliseconds sent as seconds, broken clocks). */
const FUTURE_TOLERANCE_S = 86_400
/** Before this (2001-09-09) a `modify_time` is not plausible unix seconds. */
const EARLIEST_S = 1_000_000_000

/**
 * Whether a `modify_time` is plausible unix seconds: from 2001-09-09 to a day ahead of this clock.
 * Only such times move a resume position or order a quote's transitions; milliseconds sent as
 * seconds, `1e21` or a clock two days ahead do neither.
 *
 * @example
 * isPlausibleTime(1_763_800_000) // true
 * isPlausibleTime(Date.now())    // false: milliseconds
 */
export function isPlausibleTime(t: number | null | undefined, now: number = Date.now()): t is number {
  return typeof t === 'number' && t >= EARLIEST_S && t <= Math.floor(now / 1000) + FUTURE_TOLERANCE_S
}

/**
 * Whether a resume position (`since`, a stored checkpoint, a relay account's `since`) can be used:
 * `0` (the start of history) or plausible unix seconds ({@link isPlausibleTime}). Anything else would
 * make a backfill ask for a future that never comes and find nothing, silently.
 *
 * @example
 * isPlausiblePosition(0)          // true: from the start of history
 * isPlausiblePosition(Date.now()) // false: milliseconds
 */
export function isPlausiblePosition(t: unknown, now: number = Date.now()): t is number {
  return t === 0 || isPlausibleTime(t as number, now)
}

/** What a position must be, as messages refusing one say it. */
export const PLAUSIBLE_POSITION = 'unix seconds: 0 (the start of history) or a time from 2001 to a day ahead'
