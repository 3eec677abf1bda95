import type { Timers } from '../../transport/Timers.js'

/**
 * Polls of one endpoint start this much further apart than their streams' intervals would ask: a tenth
 * of headroom, so the requests of any stretch of time stay below a tenth of the streams per tenth of
 * the interval.
 */
const POLL_HEADROOM = 1.1

interface Waiter {
  task: () => Promise<unknown>
  poll: boolean
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  signal: AbortSignal
  onAbort: () => void
}

/**
 * The history requests resume streams make on their own (backfills and polls) to one solver endpoint,
 * in one place (docs/guide/resume.md, "History polling"):
 *
 * - at most `concurrency` in flight (the rest wait in order), so 500 streams on a refused hub never
 *   open 500 requests at once;
 * - polls spread evenly: they start at least `interval / streams polling` apart (with headroom), so
 *   streams that went down together never poll in lockstep; a reconnect backfill is not spaced;
 * - a `Retry-After` holds the whole endpoint: nothing starts before it has passed.
 *
 * An app's own `search` calls do not wait here. Loaded on a resume stream's first history request (a
 * lazy chunk: an app without resume never downloads it).
 */
export class HistoryGate {
  #active = 0
  readonly #waiting: Waiter[] = []
  /** ms since epoch before which nothing starts (the endpoint's last Retry-After) */
  #notBefore = 0
  /** ms since epoch before which no poll starts */
  #nextPoll = 0
  #wake: ReturnType<typeof setTimeout> | undefined
  readonly #timers: Timers
  /** polls per millisecond the endpoint's streams polling now ask for (kept by the client: streams start polling before this code loads) */
  readonly #pollers: { readonly rate: number }

  constructor(
    readonly concurrency: number,
    timers: Timers,
    pollers: { readonly rate: number }) {
    this.#timers = timers
    this.#pollers = pollers
  }

  /** Runs `task` when the gate lets it (see the class); an abort takes it out of the queue. */
  run<T>(task: () => Promise<T>, signal: AbortSignal, poll: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        task,
        poll,
        resolve: resolve as (value: unknown) => void,
        reject,
        signal,
        onAbort: () => {
          const at = this.#waiting.indexOf(waiter)
          if (at !== -1) this.#waiting.splice(at, 1)
          // Nothing waits any more: no timer outlives the streams (stats().timers).
          if (this.#waiting.length === 0) this.#wake = this.#timers.clear(this.#wake)
          reject(signal.reason)
        },
      }
      if (signal.aborted) {
        reject(signal.reason)
        return
      }
      signal.addEventListener('abort', waiter.onAbort, { once: true })
      this.#waiting.push(waiter)
      this.#pump()
    })
  }

  /** Requests waiting (for a slot, the poll spacing or a Retry-After). */
  get queued(): number {
    return this.#waiting.length
  }

  #pump(): void {
    this.#wake = this.#timers.clear(this.#wake)
    while (this.#active < this.concurrency && this.#waiting.length > 0) {
      const now = Date.now()
      const at = now < this.#notBefore ? -1 : this.#waiting.findIndex((w) => !w.poll || now >= this.#nextPoll)
      if (at === -1) {
        this.#sleep((now < this.#notBefore ? this.#notBefore : this.#nextPoll) - now)
        return
      }
      const [w] = this.#waiting.splice(at, 1) as [Waiter]
      w.signal.removeEventListener('abort', w.onAbort)
      const rate = this.#pollers.rate
      if (w.poll && rate > 0) this.#nextPoll = now + POLL_HEADROOM / rate
      this.#active++
      w.task().then(
        (value) => this.#done(() => w.resolve(value)),
        (error: unknown) => {
          const retryAfterMs = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs
          if (typeof retryAfterMs === 'number' && retryAfterMs > 0) this.#notBefore = Math.max(this.#notBefore, Date.now() + retryAfterMs)
          this.#done(() => w.reject(error))
        },
      )
    }
  }

  #done(settle: () => void): void {
    this.#active--
    settle()
    this.#pump()
  }

  #sleep(ms: number): void {
    this.#wake = this.#timers.set(() => {
      this.#wake = undefined
      this.#pump()
    }, Math.max(1, ms))
  }
}
