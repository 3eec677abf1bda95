import { MAX_TIMEOUT_MS } from '../utils/setLongTimeout.js'

/**
 * setTimeout/clearTimeout that keep count of what is pending, so tests (and `stats()`) can prove
 * that nothing outlives a release. Goes through the globals so fake timers work in unit tests. A
 * delay past 2^31−1 ms is clamped to it (a longer one fires after 1 ms: a timer loop).
 */
export class Timers {
  readonly #live = new Set<ReturnType<typeof setTimeout>>()

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
