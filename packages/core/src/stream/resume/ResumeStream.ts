import { ServiceError, isServiceError } from '../../errors/ServiceError.js'
import type { SafeLogger } from '../../transport/SafeLogger.js'
import type { StreamSnapshot } from '../../transport/SocketSnapshot.js'
import type { Notification } from '../../protocol/types.js'
import type { BackfillFetch, BackfillResult } from '../../search/backfill.js'
import { backoffDelay } from '../../transport/backoffDelay.js'
import { PooledListener } from '../../transport/ListenerPool.js'
import type { Timers } from '../../transport/Timers.js'
import type { TransportErrorEvent, TransportStatusEvent } from '../../transport/TransportEvent.js'
import type { ClientStats } from '../ClientStats.js'
import type { BackfillStatus, StatusEvent } from '../NotificationEvent.js'
import { CheckpointWriter } from './CheckpointWriter.js'
import { Holdback, type HoldbackHost } from './Holdback.js'
import type { ResumeSettings } from './resumeOptions.js'

export type { ResumeSettings } from './resumeOptions.js'

/** Where a stream's events go: what the Observable's subscriber is fed from. */
export interface StreamListener {
  notification(notification: Notification): void
  event(event: StatusEvent | TransportErrorEvent): void
  complete(): void
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
  /** whether the client was closed: a stream polling after its socket was refused for good ends then */
  clientClosed?: () => boolean
  logger?: SafeLogger | undefined
}

/**
 * Where a resume stream is:
 *
 * | phase | live frames | leaves when |
 * |---|---|---|
 * | `live` | delivered | a drop (`holding`), a first load from `since`/checkpoint or a sweep (`holding` / `backfilling`) |
 * | `reading-checkpoint` | held | the store answers, fails or times out (`holding` with a position, else `live`) |
 * | `holding` | held | the socket is open: a backfill starts (`backfilling`), or there is no gap (`live`) |
 * | `backfilling` | held | the walk ends (merge: `live`, or `holding` when the socket dropped meanwhile and the next backfill waits for it), or fails (held frames flow, a retry is armed: `live`); a drop does not stop it |
 * | `disposed` | dropped | — |
 */
export type ResumePhase = 'live' | 'reading-checkpoint' | 'holding' | 'backfilling' | 'disposed'

type ResumeEvent =
  | { type: 'start' }
  | { type: 'notification'; notification: Notification }
  | { type: 'transport'; event: TransportStatusEvent | TransportErrorEvent }
  | { type: 'checkpoint'; since: number | undefined }
  | { type: 'backfilled'; since: number; result: BackfillResult }
  | { type: 'backfill-failed'; cause: unknown }
  | { type: 'retry' }
  | { type: 'sweep' }
  | { type: 'poll' }
  | { type: 'complete' }
  | { type: 'dispose' }

/** The status a stream assumes until its first status event: shared, every stream starts there. */
const CONNECTING: TransportStatusEvent = Object.freeze({ type: 'status', status: 'connecting', attempt: 0 })

/** Poll interval while one of the stream's quotes is mid-transition (`resume.poll`). */
const UNSETTLED_POLL_MS = 1_500

/** Clock skew allowed between this machine and the solver when nothing has been seen yet (seconds). */
const START_MARGIN_S = 2

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * One resume subscription (docs/architecture.md, "Resume"): sits between the socket and the
 * subscriber, keeps a watermark (the newest plausible `modify_time` delivered), and whenever a gap may
 * exist (first load from `since` or a checkpoint, every reconnect, each sweep) backfills it through
 * search while holding live frames, then delivers the union once each, in `modify_time` order per
 * quote. Nothing is lost silently: a backfill that cannot cover the gap is `truncated` with a
 * `BACKFILL_TRUNCATED` error, a failed one is an error and is retried with backoff (and
 * `Retry-After`), and history rows older than what their quote already delivered are counted as
 * `stale` and reported. Its `phase` changes in one place, {@link ResumeStream.dispatch}; what it
 * holds and delivers is the {@link Holdback}, where it is kept the {@link CheckpointWriter}.
 */
export class ResumeStream extends PooledListener implements HoldbackHost {
  phase: ResumePhase = 'live'
  /** where the next backfill starts: the watermark at the first gap no backfill has covered yet */
  private gapFrom: number | undefined
  /**
   * A gap that opened while a backfill was running (the socket dropped under it): the running
   * backfill is not thrown away, it finishes and this becomes the next one's start.
   */
  private nextGap: number | undefined
  /** where the next sweep starts */
  private sweepFrom: number
  private inFlight: AbortController | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private sweepTimer: ReturnType<typeof setTimeout> | undefined
  private pollTimer: ReturnType<typeof setTimeout> | undefined
  /** the socket has been open for this stream at least once */
  private opened = false
  /** the stream saw its socket dial before it first opened */
  private dialedFirst = false
  /** history is the source while the socket is not open (`resume.poll`) */
  private polling = false
  /** when the socket was last seen going down (or the stream started): polling begins `poll.afterMs` after it */
  private downSince = Date.now()
  /** the socket was refused for good and `poll.whenClosed` keeps the stream on history alone */
  private closedForGood = false
  /** quotes whose newest notification is not a settled outcome yet: polled faster */
  private unsettled: Set<number> | undefined
  private failures = 0
  private lastStatus: TransportStatusEvent = CONNECTING
  private readonly holdback: Holdback
  private readonly checkpoint: CheckpointWriter | undefined

  constructor(
    private readonly out: StreamListener,
    private readonly ctx: ResumeContext,
  ) {
    super()
    const { settings } = ctx
    const start = nowSeconds() - START_MARGIN_S
    this.sweepFrom = start
    this.holdback = new Holdback(start, settings.dedupeWindow, settings.maxHeldFrames, ctx.stats, this)
    this.checkpoint = settings.checkpoint
      ? new CheckpointWriter(settings.checkpoint, ctx.key, ctx.timers, settings.checkpointTimeoutMs, () => this.position(), (error) => this.report(error))
      : undefined
  }

  /** Called once the stream is in the pool: a known position (`since`, a checkpoint) backfills at once. */
  start(): void {
    this.dispatch({ type: 'start' })
  }

  notification(notification: Notification): void {
    this.dispatch({ type: 'notification', notification })
  }

  event(event: TransportStatusEvent | TransportErrorEvent): void {
    this.dispatch({ type: 'transport', event })
  }

  complete(): void {
    this.dispatch({ type: 'complete' })
    if (!this.closedForGood) this.out.complete()
  }

  /** Release: abort the search, clear every timer, write the checkpoint, deliver nothing more. */
  dispose(): void {
    this.dispatch({ type: 'dispose' })
  }

  /** The one place the phase changes. */
  private dispatch(event: ResumeEvent): void {
    if (this.phase === 'disposed') return
    const { settings } = this.ctx
    switch (event.type) {
      case 'start': {
        if (settings.since !== undefined) this.startFrom(settings.since)
        else if (this.checkpoint) {
          // Live frames wait for the position (a store that answers at once ends this phase at once).
          this.holdback.hold()
          this.phase = 'reading-checkpoint'
          this.checkpoint.read((since) => this.dispatch({ type: 'checkpoint', since }))
        }
        return
      }
      case 'checkpoint': {
        if (this.phase !== 'reading-checkpoint') return
        this.phase = 'live'
        if (event.since !== undefined) this.startFrom(this.gapFrom === undefined ? event.since : Math.min(this.gapFrom, event.since))
        else if (this.gapFrom === undefined) this.holdback.release()
        else this.afterHold()
        return
      }
      case 'notification':
        this.holdback.push(event.notification)
        return
      case 'transport':
        this.onTransport(event.event)
        return
      case 'backfilled':
        this.onBackfilled(event.since, event.result)
        return
      case 'backfill-failed': {
        const { stats, timers } = this.ctx
        this.inFlight = undefined
        // The gap that opened meanwhile is later than the one this attempt was for: the retry covers both.
        this.nextGap = undefined
        stats.backfills.failed++
        const error = isServiceError(event.cause) ? event.cause : new ServiceError('NETWORK', `Backfill failed: ${String(event.cause)}`, { cause: event.cause })
        this.out.event({ type: 'error', error })
        // Live frames flow at once; the retry still starts from the same gap.
        this.holdback.release()
        this.phase = 'live'
        const retryAfterMs = (event.cause as { retryAfterMs?: number })?.retryAfterMs
        const delay = Math.max(backoffDelay(this.failures++, this.ctx.backoff, this.ctx.random), typeof retryAfterMs === 'number' ? retryAfterMs : 0)
        this.retryTimer = timers.set(() => {
          this.retryTimer = undefined
          this.dispatch({ type: 'retry' })
        }, delay)
        if (this.polling) this.armPoll()
        return
      }
      case 'retry':
        if (this.lastStatus.status === 'open') this.backfill()
        return
      case 'poll':
        this.pollTimer = undefined
        if (this.closedForGood && this.ctx.clientClosed?.()) {
          // The client was closed while history was this stream's only source: it ends like the others.
          this.closedForGood = false
          this.dispatch({ type: 'complete' })
          this.out.complete()
          return
        }
        if (this.lastStatus.status === 'open') return
        if (this.inFlight) {
          this.armPoll()
          return
        }
        if (!this.polling) {
          this.polling = true
          this.out.event({ ...this.lastStatus, polling: true })
        }
        this.gapFrom ??= this.gapStart()
        this.backfill()
        return
      case 'sweep':
        if (this.lastStatus.status !== 'open' || this.inFlight) {
          this.armSweep()
          return
        }
        this.gapFrom ??= this.sweepFrom
        this.backfill()
        return
      case 'complete':
        // Refused for good, with `poll.whenClosed`: history stays the source until the app lets go.
        if (this.closedForGood) return
        this.abort()
        this.holdback.release()
        this.end()
        return
      case 'dispose':
        // The last position is written while what is held still counts: a reload must backfill it.
        this.checkpoint?.dispose()
        this.holdback.discard()
        this.abort()
        this.end()
        return
    }
  }

  private onTransport(event: TransportStatusEvent | TransportErrorEvent): void {
    if (event.type === 'status' && event.status === 'open') this.pollTimer = this.ctx.timers.clear(this.pollTimer)
    if (event.type === 'status' && event.status === 'open' && this.polling) {
      // The socket is back: polling stops (the reconnect backfill closes what is left of the gap).
      this.polling = false
      this.out.event({ ...event, polling: false })
    } else this.out.event(this.polling && event.type === 'status' ? { ...event, polling: true } : event)
    if (event.type !== 'status') return
    if (this.lastStatus.status === 'open' && event.status !== 'open') this.downSince = Date.now()
    this.lastStatus = event
    if (event.status === 'connecting' || event.status === 'reconnecting') this.armPoll()
    if (event.status === 'connecting' && !this.opened && !this.dialedFirst) {
      this.dialedFirst = true
      // Its gap (from subscribing) is open until the first open: written within a second, like a drop's.
      this.checkpoint?.schedule()
    }
    if (event.status === 'reconnecting') {
      // A gap opens here, also before the first open: the stream's position began when it was
      // subscribed (the watermark starts there), so what the server stored meanwhile is backfilled.
      const start = this.gapStart()
      if (this.inFlight) {
        // The running backfill goes on (history does not need the socket): throwing its progress away
        // on every drop would leave a stream that drops faster than one round trip holding for ever.
        this.nextGap = this.nextGap === undefined ? start : Math.min(this.nextGap, start)
        this.holdback.split()
      } else this.gapFrom = this.gapFrom === undefined ? start : Math.min(this.gapFrom, start)
      // The position may have moved back to the gap: written within a second (a tab killed now still resumes from it).
      this.checkpoint?.schedule()
      // Keep holding: frames released now would sort before older transitions the next backfill finds.
      this.holdback.hold()
      this.retryTimer = this.ctx.timers.clear(this.retryTimer)
      this.sweepTimer = this.ctx.timers.clear(this.sweepTimer)
      if (this.phase === 'live') this.phase = 'holding'
    } else if (event.status === 'open') {
      // Subscribed while the socket was still dialing: what was stored until it opened is a gap like any
      // other, from the stream's position (its start, `since` or checkpoint). One that joined an open socket has none.
      if (!this.opened && this.dialedFirst && this.gapFrom === undefined && this.phase !== 'reading-checkpoint') this.gapFrom = this.gapStart()
      this.opened = true
      // A backfill still running starts the next one when it ends (onBackfilled).
      if (this.gapFrom !== undefined && this.phase !== 'reading-checkpoint') this.backfill()
      this.armSweep()
    } else if (event.status === 'closed') {
      const poll = this.ctx.settings.poll
      if (poll?.whenClosed && event.closeReason !== 'client closed') {
        // Refused for good, but history answers: keep it as the source.
        this.closedForGood = true
        this.gapFrom ??= this.gapStart()
        this.armPoll()
        return
      }
      this.pollTimer = this.ctx.timers.clear(this.pollTimer)
      this.abort()
      this.holdback.release()
      if (this.phase !== 'reading-checkpoint') this.phase = 'live'
      this.checkpoint?.write()
    }
  }

  /** After a position is known: backfill now when subscribed, else hold until the socket is. */
  private afterHold(): void {
    if (this.lastStatus.status === 'open') this.backfill()
    else this.phase = 'holding'
  }

  /**
   * First load from a known position: hold live frames and backfill as soon as the socket is
   * subscribed (at once when it already is). History is read only after the live subscription is in
   * place, so nothing published in between falls into neither.
   */
  private startFrom(since: number): void {
    this.gapFrom = since
    this.holdback.watermark = Math.max(this.holdback.watermark, since)
    this.sweepFrom = since
    this.holdback.hold()
    this.afterHold()
  }

  private backfill(): void {
    if (this.inFlight || this.gapFrom === undefined) return
    const { ctx } = this
    const since = this.gapFrom
    const controller = new AbortController()
    this.inFlight = controller
    this.holdback.hold()
    this.phase = 'backfilling'
    this.sweepFrom = this.watermarkNow()
    ctx.stats.backfills.runs++
    this.status({ state: 'started', since })
    ctx.fetch({ since, maxRows: ctx.settings.maxBackfillRows, known: (n) => this.holdback.known(n), signal: controller.signal }).then(
      (result) => {
        if (!controller.signal.aborted) this.dispatch({ type: 'backfilled', since, result })
      },
      (cause: unknown) => {
        if (!controller.signal.aborted) this.dispatch({ type: 'backfill-failed', cause })
      },
    )
  }

  private onBackfilled(since: number, result: BackfillResult): void {
    const { ctx } = this
    this.inFlight = undefined
    this.failures = 0
    if (this.gapFrom === since) this.gapFrom = this.nextGap
    else if (this.nextGap !== undefined) this.gapFrom = Math.min(this.gapFrom ?? this.nextGap, this.nextGap)
    this.nextGap = undefined
    // With another gap open, merge delivers what this backfill covers and keeps holding the rest.
    const { recovered, stale } = this.holdback.merge(result.notifications)
    this.phase = this.holdback.holding ? 'holding' : 'live'
    ctx.stats.backfills.recovered += recovered
    ctx.stats.backfills.foreign += result.foreign
    if (result.overlong > 0) {
      this.out.event({
        type: 'error',
        error: new ServiceError(
          'INVALID_RESPONSE',
          `History answered pages longer than the page size asked: ${result.overlong} rows beyond it were dropped, so this backfill may be incomplete. The service ignores the page size: fix it (or its configured URL).`,
        ),
      })
    }
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
    if (this.polling && this.lastStatus.status !== 'open') {
      // History answered up to about now; the socket is still down, so a gap stays open from where this poll started.
      this.gapFrom = this.gapFrom === undefined ? this.sweepFrom : Math.min(this.gapFrom, this.sweepFrom)
      this.armPoll()
    }
    if (this.gapFrom !== undefined && this.lastStatus.status === 'open') this.backfill()
    this.armSweep()
  }

  /** Stops the running attempt and any pending retry; what is held stays held. */
  private abort(): void {
    this.inFlight?.abort()
    this.inFlight = undefined
    this.retryTimer = this.ctx.timers.clear(this.retryTimer)
  }

  private end(): void {
    this.phase = 'disposed'
    this.sweepTimer = this.ctx.timers.clear(this.sweepTimer)
    this.pollTimer = this.ctx.timers.clear(this.pollTimer)
    this.checkpoint?.dispose()
  }

  /** `sweepIntervalMs`: re-run the backfill on a timer while connected, for feeds that lose frames on a healthy socket. */
  private armSweep(): void {
    const every = this.ctx.settings.sweepIntervalMs
    if (!every || this.sweepTimer !== undefined || this.lastStatus.status !== 'open') return
    this.sweepTimer = this.ctx.timers.set(() => {
      this.sweepTimer = undefined
      this.dispatch({ type: 'sweep' })
    }, every)
  }

  /**
   * `resume.poll`: while the socket is not open, history is read `afterMs` after it went down, then every
   * `intervalMs` (faster while a quote is mid-transition), through the backfill path.
   */
  private armPoll(): void {
    const poll = this.ctx.settings.poll
    if (!poll || this.pollTimer !== undefined || this.phase === 'disposed') return
    if (this.lastStatus.status === 'open' || (this.lastStatus.status === 'closed' && !this.closedForGood)) return
    const wait = this.polling ? (this.unsettled?.size ? Math.min(UNSETTLED_POLL_MS, poll.intervalMs) : poll.intervalMs) : Math.max(0, poll.afterMs - (Date.now() - this.downSince))
    this.pollTimer = this.ctx.timers.set(() => this.dispatch({ type: 'poll' }), wait)
  }

  private watermarkNow(): number {
    return this.holdback.watermark
  }

  /** For the holdback: an error to report. */
  report(error: ServiceError): void {
    this.out.event({ type: 'error', error })
  }

  /** For the holdback: the watermark moved, so the checkpoint will be written. */
  moved(): void {
    this.checkpoint?.schedule()
  }

  /** For the holdback: the oldest position a later backfill (a gap, the next one, a sweep) may start from. */
  floor(): number {
    let floor = this.holdback.watermark
    if (this.gapFrom !== undefined) floor = Math.min(floor, this.gapFrom)
    if (this.nextGap !== undefined) floor = Math.min(floor, this.nextGap)
    if (this.ctx.settings.sweepIntervalMs) floor = Math.min(floor, this.sweepFrom)
    return floor
  }

  /**
   * Where a gap opening now starts: the watermark (the subscription's start while nothing was
   * delivered), or earlier when frames are held whose server time is earlier (a server clock behind
   * this machine's).
   */
  private gapStart(): number {
    const held = this.holdback.oldestHeld()
    return held === undefined ? this.watermarkNow() : Math.min(this.watermarkNow(), held)
  }

  /**
   * The position a resume would be complete from: never later than the start of a gap no backfill
   * covered yet, nor than a frame received but not delivered (a reload then backfills them:
   * at-least-once, never a hole), else the watermark. A stream with no gap, nothing held and nothing
   * delivered has no position (the store is left alone).
   */
  private position(): number | undefined {
    const candidates: number[] = []
    // Subscribed while the socket dials and not open yet: the gap from subscribing is open.
    if (this.dialedFirst && !this.opened) candidates.push(this.gapStart())
    if (this.gapFrom !== undefined) candidates.push(this.gapFrom)
    if (this.nextGap !== undefined) candidates.push(this.nextGap)
    const held = this.holdback.oldestHeld()
    if (held !== undefined) candidates.push(held)
    if (candidates.length === 0 && !this.holdback.delivered) return undefined
    candidates.push(this.holdback.watermark)
    return Math.min(...candidates)
  }

  /** For `client.inspect()`: built only when someone looks. */
  inspect(account: string): StreamSnapshot {
    // Recording starts when someone looks, so a stream nobody inspects keeps nothing.
    this.recent ??= []
    return { account, phase: this.phase, watermark: this.holdback.watermark, held: this.holdback.heldCount, recent: [...this.recent], lastBackfill: this.lastBackfill }
  }

  private recent: Array<StreamSnapshot['recent'][number]> | undefined

  /** Nobody inspects any more: what was recorded is dropped, and nothing is recorded until someone looks again. */
  forgetInspection(): void {
    this.recent = undefined
  }

  /** For the holdback: a notification goes out. */
  emit(n: Notification): void {
    if (this.ctx.settings.poll) {
      // A quote mid-transition (seen, or an outcome not known yet) makes polling faster until it settles.
      if (n.type === 'seen' || n.type === 'unknown') {
        const unsettled = (this.unsettled ??= new Set())
        if (unsettled.size < 256) unsettled.add(n.quoteId)
      } else this.unsettled?.delete(n.quoteId)
    }
    const recent = this.recent
    if (recent) {
      if (recent.length === 100) recent.shift()
      recent.push({ quoteId: n.quoteId, type: n.type, lastSeenAction: n.lastSeenAction, modifyTime: n.modifyTime, source: n.source })
    }
    this.out.notification(n)
  }

  private lastBackfill: BackfillStatus | undefined

  private status(backfill: BackfillStatus): void {
    this.lastBackfill = backfill
    this.ctx.logger?.log(backfill.state === 'started' ? 'debug' : backfill.state === 'truncated' ? 'warn' : 'info', `backfill ${backfill.state}`, { stream: this.ctx.key, ...backfill })
    this.out.event(this.polling ? { ...this.lastStatus, backfill, polling: true } : { ...this.lastStatus, backfill })
  }
}
