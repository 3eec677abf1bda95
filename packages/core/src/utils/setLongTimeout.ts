/** The longest delay `setTimeout` honours; a longer one fires at once (Node warns `TimeoutOverflowWarning`). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1

/**
 * `setTimeout` for any delay: above 2^31−1 ms (24.8 days) it chains timers, where a plain one would
 * fire after 1 ms. Returns the function that cancels it.
 *
 * @example
 * const cancel = setLongTimeout(() => giveUp(), 3e9)
 */
export function setLongTimeout(fn: () => void, ms: number, set: (fn: () => void, ms: number) => unknown = setTimeout, clear: (handle: never) => void = clearTimeout): () => void {
  let handle: unknown
  let left = ms
  const step = () => {
    if (left > MAX_TIMEOUT_MS) {
      left -= MAX_TIMEOUT_MS
      handle = set(step, MAX_TIMEOUT_MS)
    } else {
      handle = set(fn, left)
    }
  }
  step()
  return () => clear(handle as never)
}
