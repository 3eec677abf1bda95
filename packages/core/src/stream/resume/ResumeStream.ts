import { ServiceError, isServiceError } from '../../errors/ServiceError.js'
import type { Notification } from '../../protocol/types.js'
import type { BackfillFetch } from '../../search/backfill.js'
import { backoffDelay } from '../../transport/backoffDelay.js'
import type { Lease } from '../../transport/SocketPool.js'
import type { Timers } from '../../transport/Timers.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from '../../transport/TransportEvent.js'
import type { ClientStats } from '../ClientStats.js'
import type { BackfillStatus, StatusEvent } from '../NotificationEvent.js'
import type { CheckpointStore } from './CheckpointStore.js'
import { DedupeWindow } from './DedupeWindow.js'
import { isPlausiblePosition, isPlausibleTime } from '../../utils/plausibleTime.js'

/** Where a stream's events go: what the Observable's subscriber is fed from. */
export interface StreamListener {
  notification(notification: Notification): void
  event(event: StatusEvent | TransportErrorEvent): void
  complete(): void
}

/** Resume settings with defaults applied. */
export interface ResumeSettings {
  since: number | undefined
  checkpoint: CheckpointStore | undefined
  maxBackfillRows: number
  maxHeldFrames: number
  sweepIntervalMs: number | undefined
  dedupeWindow: number
  /** how long a checkpoint `get` may take before the stream starts without it (the search deadline) */
  checkpointTimeoutMs: number
}

export interface ResumeContext {
  fetch: BackfillFetch
  timers: Timers
  backoff: { baseDelayMs: number; maxDelayMs: number }
  random: () => number
  stats: ClientStats
  settings: ResumeSettings
  /** the stream's checkpoint key */
  key: string
}

/** Clock skew allowed between this machine and the solver when nothing has been seen yet (seconds). */
const START_MARGIN_S = 2
/** Checkpoints are written at most this often while the watermark moves (and at the end). */
const CHECKPOINT_EVERY_MS = 1_000

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * One resume subscription (docs/architecture.md, "Resume"): sits between the socket and the subscriber, keeps a watermark
 * (the newest plausible `modify_time` delivered), and whenever a gap may exist (first load from
 * `since` or a checkpoint, every reconnect, each sweep) backfills it through search while holding live
 * frames, then delivers the union once each, in `modify_time` order per quote. Nothing is lost
 * silently: a backfill that cannot cover the gap is `truncated` with a `BACKFILL_TRUNCATED` error, a
 * failed one is an error and is retried with backoff (and `Retry-After`), and transitions older than
 * what their quote already delivered are counted as `stale` and reported.
 */
export class ResumeStream implements Listener, Lease {
  router: Lease['router'] = undefined
  route: Lease['route'] = undefined
  private watermark: number
  /** where the next backfill starts: the watermark at the first gap no backfill has covered yet */
  private gapFrom: number | undefined
  /** where the next sweep starts */
  private sweepFrom: number
  private readonly seen: DedupeWindow
  private held: Notification[] | undefined
  private inFlight: AbortController | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private sweepTimer: ReturnType<typeof setTimeout> | undefined
  private checkpointTimer: ReturnType<typeof setTimeout> | undefined
  private checkpointed: number | undefined
  private failures = 0
  private lastStatus: TransportStatusEvent = { type: 'status', status: 'connecting', attempt: 0 }
  /** the first-load position is still being read from the checkpoint store */
  private waitingForCheckpoint = false
  private hasOpened = false
  private dropped = false
  private disposed = false

  constructor(
    private readonly out: StreamListener,
    private readonly ctx: ResumeContext,
  ) {
    const { settings } = ctx
    this.seen = new DedupeWindow(settings.dedupeWindow)
    this.watermark = nowSeconds() - START_MARGIN_S
    this.sweepFrom = this.watermark
  }

  /** Called once the stream is in the pool: a known position (`since`, a checkpoint) backfills at once. */
  start(): void {
    const { settings } = this.ctx
    if (this.disposed) return
    if (settings.since !== undefined) this.startFrom(settings.since)
    else if (settings.checkpoint) this.readCheckpoint(settings.checkpoint)
  }

  notification(notification: Notification): void {
    if (this.disposed) return
    if (!this.held) {
      this.deliver(notification)
      return
    }
    this.held.push(notification)
    // Memory stays bounded whatever the history does: at the cap, held frames go out in order and the
    // backfill still covers the gap from where it started (older transitions it finds count as stale).
    if (this.held.length >= this.ctx.settings.maxHeldFrames) {
      const held = this.held
      this.held = []
      this.deliverAll(held)
    }
  }

  event(event: TransportStatusEvent | TransportErrorEvent): void {
    if (this.disposed) return
    this.out.event(event)
    if (event.type !== 'status') return
    this.lastStatus = event
    if (event.status === 'reconnecting') {
      this.dropped = true
      if (this.hasOpened) this.gapFrom ??= this.watermark
      // Keep holding: frames released now would sort before older transitions the next backfill finds.
      this.held ??= []
      this.abort()
      this.sweepTimer = this.ctx.timers.clear(this.sweepTimer)
    } else if (event.status === 'open') {
      if (this.gapFrom !== undefined && !this.waitingForCheckpoint && (this.dropped || !this.inFlight)) this.backfill()
      this.hasOpened = true
      this.dropped = false
      this.armSweep()
    } else if (event.status === 'closed') {
      this.abort()
      this.release()
      this.writeCheckpoint()
    }
  }

  complete(): void {
    this.release()
    this.dispose()
    this.out.complete()
  }

  /** Release: abort the search, clear every timer, write the checkpoint, deliver nothing more. */
  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.held = undefined
    this.abort()
    this.sweepTimer = this.ctx.timers.clear(this.sweepTimer)
    this.writeCheckpoint()
  }

  /**
   * First load from a known position: hold live frames and backfill as soon as the socket is
   * subscribed (at once when it already is). History is read only after the live subscription is in
   * place, so nothing published in between falls into neither.
   */
  private startFrom(since: number): void {
    this.gapFrom = since
    this.watermark = Math.max(this.watermark, since)
    this.sweepFrom = since
    this.held ??= []
    if (this.lastStatus.status === 'open') this.backfill()
  }

  private readCheckpoint(store: CheckpointStore): void {
    let value: unknown
    try {
      value = store.get(this.ctx.key)
    } catch (cause) {
      this.checkpointFailed('read', cause)
      return
    }
    if (!(value instanceof Promise)) {
      this.useCheckpoint(value)
      return
    }
    this.waitingForCheckpoint = true
    this.held = []
    // A store that never answers must not hold live frames for ever: it gets the search deadline.
    let timedOut = false
    const deadline = this.ctx.timers.set(() => {
      timedOut = true
      this.waitingForCheckpoint = false
      if (this.disposed) return
      this.checkpointFailed('read', new Error(`no answer within ${this.ctx.settings.checkpointTimeoutMs} ms`))
      this.release()
    }, this.ctx.settings.checkpointTimeoutMs)
    value.then(
      (since) => {
        if (timedOut) return
        this.ctx.timers.clear(deadline)
        this.waitingForCheckpoint = false
        if (this.disposed) return
        if (!this.useCheckpoint(since)) this.release()
      },
      (cause: unknown) => {
        if (timedOut) return
        this.ctx.timers.clear(deadline)
        this.waitingForCheckpoint = false
        if (this.disposed) return
        this.checkpointFailed('read', cause)
        this.release()
      },
    )
  }

  /** Starts from a stored position when it is plausible; an implausible one is reported and ignored. */
  private useCheckpoint(value: unknown): boolean {
    if (value === undefined || value === null) return false
    if (!isPlausiblePosition(value)) {
      this.out.event({
        type: 'error',
        error: new ServiceError(
          'INVALID_CHECKPOINT',
          `The resume checkpoint "${this.ctx.key}" holds ${describeValue(value)}, which is not unix seconds (milliseconds? a clock ahead?); it was ignored and the stream starts from now. It is overwritten with a good position once one is delivered.`,
        ),
      })
      return false
    }
    this.startFrom(value)
    return true
  }

  /** Stops the running attempt and any pending retry; what is held stays held. */
  private abort(): void {
    this.inFlight?.abort()
    this.inFlight = undefined
    this.retryTimer = this.ctx.timers.clear(this.retryTimer)
  }

  /** Delivers held live frames (in order) and stops holding. */
  private release(): void {
    const held = this.held
    this.held = undefined
    if (held) this.deliverAll(held)
  }

  private backfill(): void {
    if (this.disposed || this.inFlight || this.gapFrom === undefined) return
    const { ctx } = this
    const since = this.gapFrom
    const controller = new AbortController()
    this.inFlight = controller
    this.held ??= []
    this.sweepFrom = this.watermark
    ctx.stats.backfills.runs++
    this.status({ state: 'started', since })
    ctx.fetch({ since, maxRows: ctx.settings.maxBackfillRows, known: (n) => this.seen.has(n), signal: controller.signal }).then(
      (result) => {
        if (controller.signal.aborted || this.disposed) return
        this.inFlight = undefined
        this.failures = 0
        if (this.gapFrom === since) this.gapFrom = undefined
        const held = this.held ?? []
        this.held = undefined
        const fromHistory = new Set(result.notifications)
        let recovered = 0
        let stale = 0
        // Held live frames go first on equal times, so what both sides had counts as live, not recovered.
        for (const n of sortByTime([...held, ...result.notifications])) {
          const verdict = this.deliver(n)
          if (fromHistory.has(n)) {
            if (verdict === 'new') recovered++
            else if (verdict === 'stale') stale++
          }
        }
        ctx.stats.backfills.recovered += recovered
        ctx.stats.backfills.foreign += result.foreign
        if (result.truncated) {
          ctx.stats.backfills.truncated++
          this.status({ state: 'truncated', since, recovered, stale, left: result.truncated.left })
          this.out.event({
            type: 'error',
            error: new ServiceError(
              'BACKFILL_TRUNCATED',
              `The backfill from ${since} read its limit of ${ctx.settings.maxBackfillRows} rows (resume.maxBackfillRows) with ${result.truncated.left} rows of history left, so notifications may be missing: reload the snapshot (search history) or raise maxBackfillRows.`,
            ),
          })
        } else this.status({ state: 'finished', since, recovered, stale })
        this.armSweep()
      },
      (cause: unknown) => {
        if (controller.signal.aborted || this.disposed) return
        this.inFlight = undefined
        ctx.stats.backfills.failed++
        const error = isServiceError(cause) ? cause : new ServiceError('NETWORK', `Backfill failed: ${String(cause)}`, { cause })
        this.out.event({ type: 'error', error })
        // Live frames flow at once; the retry still starts from the same gap.
        this.release()
        const retryAfterMs = (cause as { retryAfterMs?: number })?.retryAfterMs
        const delay = Math.max(backoffDelay(this.failures++, ctx.backoff, ctx.random), typeof retryAfterMs === 'number' ? retryAfterMs : 0)
        this.retryTimer = ctx.timers.set(() => {
          this.retryTimer = undefined
          if (this.lastStatus.status === 'open') this.backfill()
        }, delay)
      },
    )
  }

  /** `sweepIntervalMs`: re-run the backfill on a timer while connected, for feeds that lose frames on a healthy socket. */
  private armSweep(): void {
    const every = this.ctx.settings.sweepIntervalMs
    if (!every || this.disposed || this.sweepTimer !== undefined || this.lastStatus.status !== 'open') return
    this.sweepTimer = this.ctx.timers.set(() => {
      this.sweepTimer = undefined
      if (this.lastStatus.status !== 'open' || this.inFlight) {
        this.armSweep()
        return
      }
      this.gapFrom ??= this.sweepFrom
      this.backfill()
    }, every)
  }

  private status(backfill: BackfillStatus): void {
    this.out.event({ ...this.lastStatus, backfill })
  }

  private deliverAll(list: Notification[]): void {
    for (const n of sortByTime(list)) this.deliver(n)
  }

  /** Delivers `n` unless it is a duplicate or older than its quote's last delivery; returns the verdict. */
  private deliver(n: Notification): 'new' | 'duplicate' | 'stale' {
    const { stats } = this.ctx
    const plausible = isPlausibleTime(n.modifyTime)
    const verdict = this.seen.verdict(n, plausible)
    if (verdict === 'duplicate') {
      stats.frames.dropped.duplicate++
      return verdict
    }
    if (verdict === 'stale') {
      stats.frames.dropped.stale++
      return verdict
    }
    this.seen.remember(n, plausible)
    if (plausible && n.modifyTime > this.watermark) {
      this.watermark = n.modifyTime
      this.scheduleCheckpoint()
    }
    this.out.notification(n)
    if (!plausible && n.modifyTime !== null) {
      this.out.event({
        type: 'error',
        error: new ServiceError(
          'IMPLAUSIBLE_TIMESTAMP',
          `Quote ${n.quoteId} came with modify_time ${n.modifyTime}, which is not plausible unix seconds (more than a day ahead, or milliseconds?). It was delivered, but it moves neither the resume position nor the quote's order.`,
        ),
      })
    }
    return verdict
  }

  private scheduleCheckpoint(): void {
    if (!this.ctx.settings.checkpoint || this.checkpointTimer !== undefined || this.disposed) return
    this.checkpointTimer = this.ctx.timers.set(() => {
      this.checkpointTimer = undefined
      this.writeCheckpoint()
    }, CHECKPOINT_EVERY_MS)
  }

  /**
   * Writes the position a resume would be complete from: the watermark, or the start of a gap no
   * backfill has covered yet (a reload then backfills the gap: at-least-once, never a hole).
   */
  private writeCheckpoint(): void {
    this.checkpointTimer = this.ctx.timers.clear(this.checkpointTimer)
    const store = this.ctx.settings.checkpoint
    // Only a position this stream reached (delivered) is written, never the start guess.
    if (!store || !this.seen.entries) return
    const position = this.gapFrom === undefined ? this.watermark : Math.min(this.gapFrom, this.watermark)
    // Never write back what could not be read back.
    if (this.checkpointed === position || !isPlausiblePosition(position)) return
    this.checkpointed = position
    try {
      const written = store.set(this.ctx.key, position)
      if (written instanceof Promise) written.catch((cause: unknown) => this.checkpointFailed('write', cause))
    } catch (cause) {
      this.checkpointFailed('write', cause)
    }
  }

  private checkpointFailed(what: 'read' | 'write', cause: unknown): void {
    if (this.disposed && what === 'read') return
    this.out.event({
      type: 'error',
      error: new ServiceError(
        'CHECKPOINT',
        `Could not ${what} the resume checkpoint "${this.ctx.key}": ${(cause as Error)?.message ?? String(cause)}. ${what === 'read' ? 'The stream starts from now.' : 'A reload may backfill from an older position.'}`,
        { cause },
      ),
    })
  }
}

function describeValue(value: unknown): string {
  return typeof value === 'number' || typeof value === 'string' ? JSON.stringify(value) : typeof value
}

function sortByTime(list: Notification[]): Notification[] {
  // Stable: equal times keep arrival order; frames without a plausible time go last.
  const rank = (n: Notification) => (isPlausibleTime(n.modifyTime) ? n.modifyTime : Number.POSITIVE_INFINITY)
  return list.sort((a, b) => rank(a) - rank(b))
}
