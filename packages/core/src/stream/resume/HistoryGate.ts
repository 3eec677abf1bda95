import { ServiceError } from '../../errors/ServiceError.js'
import type { Timers } from '../../transport/Timers.js'
import { describe } from '../../utils/address.js'

/** History requests of resume streams in flight at once per solver endpoint, by default (a browser's connections per host). */
export const DEFAULT_HISTORY_CONCURRENCY = 6

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
 * An app's own `search` calls do not wait here.
 */
export class HistoryGate {
  private active = 0
  private readonly waiting: Waiter[] = []
  /** ms since epoch before which nothing starts (the endpoint's last Retry-After) */
  private notBefore = 0
  /** ms since epoch before which no poll starts */
  private nextPoll = 0
  private wake: ReturnType<typeof setTimeout> | undefined
  /** the streams polling now, each with its interval (ms) */
  private readonly pollers = new Map<object, number>()
  /** polls per millisecond the pollers ask for, summed */
  private rate = 0

  constructor(
    readonly concurrency: number,
    private readonly timers: Timers,
  ) {}

  /** A stream started (`intervalMs`) or stopped (`undefined`) polling: the spacing of polls follows. */
  polling(stream: object, intervalMs: number | undefined): void {
    const had = this.pollers.get(stream)
    if (had === intervalMs) return
    if (had !== undefined) this.rate -= 1 / had
    if (intervalMs === undefined) this.pollers.delete(stream)
    else {
      this.pollers.set(stream, intervalMs)
      this.rate += 1 / intervalMs
    }
    if (this.pollers.size === 0) this.rate = 0
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
          const at = this.waiting.indexOf(waiter)
          if (at !== -1) this.waiting.splice(at, 1)
          // Nothing waits any more: no timer outlives the streams (stats().timers).
          if (this.waiting.length === 0) this.wake = this.timers.clear(this.wake)
          reject(signal.reason)
        },
      }
      if (signal.aborted) {
        reject(signal.reason)
        return
      }
      signal.addEventListener('abort', waiter.onAbort, { once: true })
      this.waiting.push(waiter)
      this.pump()
    })
  }

  /** Requests waiting (for a slot, the poll spacing or a Retry-After). */
  get queued(): number {
    return this.waiting.length
  }

  private pump(): void {
    this.wake = this.timers.clear(this.wake)
    while (this.active < this.concurrency && this.waiting.length > 0) {
      const now = Date.now()
      const at = now < this.notBefore ? -1 : this.waiting.findIndex((w) => !w.poll || now >= this.nextPoll)
      if (at === -1) {
        this.sleep((now < this.notBefore ? this.notBefore : this.nextPoll) - now)
        return
      }
      const [w] = this.waiting.splice(at, 1) as [Waiter]
      w.signal.removeEventListener('abort', w.onAbort)
      if (w.poll && this.rate > 0) this.nextPoll = now + POLL_HEADROOM / this.rate
      this.active++
      w.task().then(
        (value) => this.done(() => w.resolve(value)),
        (error: unknown) => {
          const retryAfterMs = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs
          if (typeof retryAfterMs === 'number' && retryAfterMs > 0) this.notBefore = Math.max(this.notBefore, Date.now() + retryAfterMs)
          this.done(() => w.reject(error))
        },
      )
    }
  }

  private done(settle: () => void): void {
    this.active--
    settle()
    this.pump()
  }

  private sleep(ms: number): void {
    this.wake = this.timers.set(() => {
      this.wake = undefined
      this.pump()
    }, Math.max(1, ms))
  }
}

/** Checks `search.concurrency` (a positive integer), at client creation. */
export function resolveHistoryConcurrency(value: unknown): number {
  if (value === undefined) return DEFAULT_HISTORY_CONCURRENCY
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ServiceError('INVALID_PARAMETERS', `search.concurrency must be a positive integer (history requests of resume streams in flight per solver), got ${describe(value)}`)
  }
  return value
}
