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
