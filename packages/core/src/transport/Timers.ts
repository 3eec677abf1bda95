import { MAX_TIMEOUT_MS } from '../utils/setLongTimeout.js'
import { now } from './Diagnostics.js'

/**
 * setTimeout/clearTimeout that keep count of what is pending, so tests (and `stats()`) can prove
 * that nothing outlives a release. Goes through the globals so fake timers work in unit tests. A
 * delay past 2^31−1 ms is clamped to it (a longer one fires after 1 ms: a timer loop).
 */
export class Timers {
  readonly #live = new Set<ReturnType<typeof setTimeout>>()

  /**
   * The clock every wait is measured on: monotonic (`performance.now()` where there is one), so a wall
   * clock stepped back by NTP or a user never stretches a deadline or a Retry-After.
   */
  readonly now: () => number = now

  set(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const handle = setTimeout(() => {
      this.#live.delete(handle)
      fn()
    }, Math.min(ms, MAX_TIMEOUT_MS))
    this.#live.add(handle)
    return handle
  }

  clear(handle: ReturnType<typeof setTimeout> | undefined): undefined {
    if (handle !== undefined) {
      clearTimeout(handle)
      this.#live.delete(handle)
    }
    return undefined
  }

  get pending(): number {
    return this.#live.size
  }
}

/**
 * A timer outside every client's count (docs/architecture.md, "One clock"): unref'd where the host can
 * (it never keeps a process alive) and not in `stats().timers`, for what belongs to no stream: the
 * logger's summary of repeated lines and the browser lifecycle's sleep check. With {@link Timers}, the
 * only place transport/ and stream/ set a timer (an architecture test says so). Returns its cancel.
 */
export function backgroundTimer(fn: () => void, ms: number): () => void {
  const handle = setTimeout(fn, ms)
  ;(handle as { unref?: () => void }).unref?.()
  return () => clearTimeout(handle)
}
