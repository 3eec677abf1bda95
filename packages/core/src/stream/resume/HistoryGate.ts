import type { Timers } from '../../transport/Timers.js'

/**
 * Polls of one endpoint start this much further apart than their streams' intervals would ask: a tenth
 * of headroom, so the requests of any stretch of time stay below a tenth of the streams per tenth of
 * the interval.
 */
const POLL_HEADROOM = 1.1

/** What the gate is handed by the client. */
export interface GateKit {
  /** the error of a request that could not start in time (`retryAfterMs`: what is left of the endpoint's Retry-After) */
  late(waitedMs: number, retryAfterMs: number | undefined): Error
  /** a delay made safe to wait (`capDelay`: at most an hour) */
  cap(ms: number): number
  /** a request left the queue (the diagnostics seam) */
  gated?(waitedMs: number, outcome: 'started' | 'expired'): void
}

interface Waiter {
  task: () => Promise<unknown>
  poll: boolean
  /** ms since epoch when it asked */
  asked: number
  /** ms since epoch by which it must have started, else it fails as an attempt does */
  deadline: number
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
 * - a `Retry-After` holds the whole endpoint: nothing starts before it has passed;
 * - no wait without a deadline: a request that has not started within its wait (`search.timeoutMs`,
 *   plus the poll interval for a poll) fails as an attempt does, and one whose wait ends before the
 *   endpoint's `Retry-After` fails at once; the error carries what is left of the `Retry-After`, so the
 *   stream's retry honours it. Live frames a backfill holds are released at that deadline at the latest:
 *   one stream's trouble delays the others by at most one attempt's deadline, never by a `Retry-After`.
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
  readonly #kit: GateKit

  constructor(
    readonly concurrency: number,
    timers: Timers,
    pollers: { readonly rate: number },
    /** handed over, not imported: this is a lazy chunk (docs/architecture.md, "Lazy chunks") */
    kit: GateKit) {
    this.#timers = timers
    this.#pollers = pollers
    this.#kit = kit
  }

  /**
   * Runs `task` when the gate lets it (see the class); an abort takes it out of the queue. `waitMs`:
   * how long it may wait to start before it fails (see the class).
   */
  run<T>(task: () => Promise<T>, signal: AbortSignal, poll: boolean, waitMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const asked = this.#timers.now()
      const waiter: Waiter = {
        task,
        poll,
        asked,
        deadline: asked + this.#kit.cap(waitMs),
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
    this.#expire(this.#timers.now())
    while (this.#active < this.concurrency && this.#waiting.length > 0) {
      const now = this.#timers.now()
      const at = now < this.#notBefore ? -1 : this.#waiting.findIndex((w) => !w.poll || now >= this.#nextPoll)
      if (at === -1) {
        this.#sleep((now < this.#notBefore ? this.#notBefore : this.#nextPoll) - now)
        return
      }
      const [w] = this.#waiting.splice(at, 1) as [Waiter]
      w.signal.removeEventListener('abort', w.onAbort)
      this.#kit.gated?.(now - w.asked, 'started')
      const rate = this.#pollers.rate
      if (w.poll && rate > 0) this.#nextPoll = now + POLL_HEADROOM / rate
      this.#active++
      w.task().then(
        (value) => this.#done(() => w.resolve(value)),
        (error: unknown) => {
          const retryAfterMs = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs
          if (typeof retryAfterMs === 'number' && retryAfterMs > 0) this.#notBefore = Math.max(this.#notBefore, this.#timers.now() + this.#kit.cap(retryAfterMs))
          this.#done(() => w.reject(error))
        },
      )
    }
    // Every slot busy: the waiting requests still have their deadlines.
    if (this.#waiting.length > 0 && this.#wake === undefined) this.#sleep(Number.POSITIVE_INFINITY)
  }

  #done(settle: () => void): void {
    this.#active--
    settle()
    this.#pump()
  }

  /** Fails what waited past its deadline, and what would: its deadline comes before the endpoint may be asked again. */
  #expire(now: number): void {
    const notBefore = this.#notBefore
    for (let i = 0; i < this.#waiting.length; i++) {
      const w = this.#waiting[i]!
      if (w.deadline >= now && w.deadline >= notBefore) continue
      this.#waiting.splice(i--, 1)
      w.signal.removeEventListener('abort', w.onAbort)
      this.#kit.gated?.(now - w.asked, 'expired')
      w.reject(this.#kit.late(now - w.asked, notBefore > now ? notBefore - now : undefined))
    }
  }

  /** Sleeps until something may start, or until the next deadline of a waiting request. */
  #sleep(ms: number): void {
    let wake = ms
    const now = this.#timers.now()
    for (const w of this.#waiting) wake = Math.min(wake, w.deadline - now)
    this.#wake = this.#timers.set(() => {
      this.#wake = undefined
      this.#pump()
    }, Math.max(1, wake))
  }
}
