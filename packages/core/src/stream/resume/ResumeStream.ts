import { ServiceError, isServiceError } from '../../errors/ServiceError.js'
import { type Diagnostics, now } from '../../transport/Diagnostics.js'
import type { SafeLogger } from '../../transport/SafeLogger.js'
import type { StreamSnapshot } from '../../transport/SocketSnapshot.js'
import type { Notification } from '../../protocol/types.js'
import type { BackfillRequest, BackfillResult } from '../../search/backfill.js'
import type { Address } from '../../utils/address.js'
import { PooledListener } from '../../transport/ListenerPool.js'
import type { Timers } from '../../transport/Timers.js'
import type { TransportErrorEvent, TransportStatusEvent } from '../../transport/TransportEvent.js'
import type { ClientStats } from '../ClientStats.js'
import type { BackfillStatus, StatusEvent } from '../NotificationEvent.js'
import { type Continuity, type ContinuityReason, continuity } from '../../transport/Continuity.js'
import { FOR_GOOD, INCOMPLETE, resumeReason } from './resumeContinuity.js'
import { CHECKPOINT_EVERY_MS, readCheckpoint, writeCheckpoint } from './CheckpointWriter.js'
import { Holdback, type HoldbackHost } from './Holdback.js'
import type { ResumeSettings } from './resumeOptions.js'
import { type ArmedTimers, type Arming, type ResumeEffect, type ResumeEvent, type ResumeState, type TimerName, TIMERS, initialResumeState, isArmed, pollInterval, positionOf, reduceResume } from './resumeReducer.js'

export type { ResumeSettings } from './resumeOptions.js'
export type { ResumePhase } from './resumeReducer.js'

/** Where a stream's events go: what the Observable's subscriber is fed from. */
export interface StreamListener {
  notification(notification: Notification): void
  event(event: StatusEvent | TransportErrorEvent): void
  complete(): void
  /** the stream's continuity changed (docs/guide/continuity.md) */
  continuity?(continuity: Continuity): void
}

/**
 * What the resume streams of one solver share (one object per client and solver, not per stream: a
 * relay holds thousands of streams, docs/guide/performance.md).
 */
export interface ResumeContext {
  /** reads the account's history from `request.since` */
  fetch: (request: BackfillRequest, account: Address) => Promise<BackfillResult>
  /** the stream's checkpoint key (also its name in logs) */
  keyOf: (account: Address) => string
  /** takes a stream out of the pool (its subscription ended) */
  release?: ((stream: ResumeStream) => void) | undefined
  timers: Timers
  backoff: { baseDelayMs: number; maxDelayMs: number }
  random: () => number
  stats: ClientStats
  /** whether the client was closed: a stream polling after its socket was refused for good ends then */
  clientClosed?: () => boolean
  /** a stream started polling every `intervalMs`, or stopped (`undefined`): polls of the endpoint are spread over its pollers */
  polling?: ((stream: ResumeStream, intervalMs: number | undefined) => void) | undefined
  logger?: SafeLogger | undefined
  /** the client's diagnostics seam and the solver's protocol (what its events name) */
  diagnostics?: Diagnostics | undefined
  protocol?: string | undefined
  /** `<chainId>.<solverId>`: what the seam's events name as the destination (low-cardinality) */
  destination?: string | undefined
  /** its history keeps each quote's latest state only (rasa): a recovered row leaves the transitions before it unknown */
  latestStateOnly?: boolean | undefined
  /** how many of the solver's streams verify (`resume.verify`): their cadence is spread so the solver gets at most one a second */
  verifiers?: { streams: number; taken: Set<number> } | undefined
}

/** The backfill the diagnostics seam follows: only while someone listens (no field per stream). */
const running = new WeakMap<ResumeStream, { id: number; poll: boolean; readAt: number }>()

/** Clock skew allowed between this machine and the solver when nothing has been seen yet (seconds). */
const START_MARGIN_S = 2

/** A stream's working state (see `ResumeStream.work`). */
interface StreamWork {
  inFlight?: AbortController | undefined
  retry?: ReturnType<typeof setTimeout> | undefined
  sweep?: ReturnType<typeof setTimeout> | undefined
  poll?: ReturnType<typeof setTimeout> | undefined
  /** quotes whose newest notification is not a settled outcome yet: polled faster */
  unsettled?: Set<number> | undefined
}

/** What the stream dispatches: the reducer's events, and live frames (pushed to the holdback without a reduction). */
type StreamEvent = ResumeEvent | { readonly type: 'frame'; readonly notification: Notification }

/** `#written` once the stream ended: its checkpoint is neither read nor written again. */
const ENDED = -1

const APPLYING = 1
const WRITE_DUE = 2
const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * One resume subscription (docs/architecture.md, "Resume"): sits between the socket and the
 * subscriber, keeps a watermark (the newest plausible `modify_time` delivered), and whenever a gap may
 * exist (first load from `since` or a checkpoint, every reconnect, each sweep) backfills it through
 * search while holding live frames, then delivers the union once each, in `modify_time` order per
 * quote. Nothing is lost silently: a backfill that cannot cover the gap is `truncated` with a
 * `BACKFILL_TRUNCATED` error, a failed one is an error and is retried with backoff (and
 * `Retry-After`), and history rows older than what their quote already delivered are counted as
 * `stale` and reported. Every decision (its phase, watermark, gaps, timers) is the pure
 * {@link reduceResume}; this class only runs the effects it returns: what it holds and delivers is
 * the {@link Holdback}, where it is kept `CheckpointWriter.ts`.
 */
export class ResumeStream extends PooledListener implements HoldbackHost {
  /** Written only by {@link reduceResume}, through {@link ResumeStream.dispatch}. */
  #state: ResumeState
  /** APPLYING: a dispatch runs its effects (events raised now wait in {@link raised}); WRITE_DUE: a checkpoint write waits for them */
  #dispatching = 0
  /** events raised by effects, applied in order after them (made at the first one) */
  #raised: StreamEvent[] | undefined
  /**
   * What a stream has only while it works: the running backfill, armed timers, quotes mid-transition.
   * Made at the first of them (an idle stream, thousands of them on a relay, holds none).
   */
  #work: StreamWork | undefined
  readonly #holdback: Holdback
  /** with a checkpoint store: the position written last ({@link ENDED} once the stream ended), and the pending write (CheckpointWriter.ts) */
  #written: number | undefined
  #writeTimer: ReturnType<typeof setTimeout> | undefined

  /** The last backfill's status, for inspection (the same object its status event carried). */
  #lastBackfill: BackfillStatus | undefined
  /** What the subscriber was told last of the stream's continuity. */
  #continuity: Continuity | undefined
  /** the running backfill is a verification of a complete stream (a sweep): it says nothing unless it finds a loss */
  #verifying = false
  /** the second of the solver's its next verification took (see `resume.verify`) */
  #slot: number | undefined
  /** live frames since the last quiet check (`resume.expectedEveryMs`), and that check's timer */
  #heard = 0
  #quiet: ReturnType<typeof setTimeout> | undefined

  readonly #out: StreamListener
  readonly #ctx: ResumeContext
  readonly #account: Address

  constructor(
    out: StreamListener,
    ctx: ResumeContext,
    account: Address,
    /** this stream's resume options, resolved */
    readonly settings: ResumeSettings) {
    super()
    this.#out = out
    this.#ctx = ctx
    this.#account = account
    const start = nowSeconds() - START_MARGIN_S
    this.#state = initialResumeState(settings, start, ctx.timers.now())
    this.#holdback = new Holdback(this)
    if (settings.verifyMs && ctx.verifiers) ctx.verifiers.streams++
    if (settings.expectedEveryMs) this.#armQuiet(settings.expectedEveryMs)
  }

  /** Called once the stream is in the pool: a known position (`since`, a checkpoint) backfills at once. */
  start(since: number | undefined): void {
    this.#dispatch({ type: 'start', since })
  }

  notification(notification: Notification): void {
    this.#heard++
    this.#dispatch({ type: 'frame', notification })
  }

  /**
   * Notifications went out through an effect (the holdback returns the newest plausible time it
   * delivered): the watermark's event goes before whatever their subscriber raised meanwhile (`at`: the
   * queue's length when the effect began), so a release inside the delivery writes a position that
   * counts them.
   */
  #delivered(newest: number | undefined, at: number): void {
    if (newest === undefined || newest <= this.#state.watermark) return
    ;(this.#raised ??= []).splice(at, 0, { type: 'delivered', modifyTime: newest })
  }

  /**
   * `resume.expectedEveryMs`: a stream whose open socket brought nothing since the last check says
   * `quiet` and verifies at once (a market that should tick and does not: docs/guide/continuity.md).
   */
  #armQuiet(every: number): void {
    this.#quiet = this.#ctx.timers.set(() => {
      this.#quiet = undefined
      if (this.#stopped) return
      const s = this.#state
      if (this.#heard === 0 && s.status.status === 'open' && s.phase === 'live' && s.running === undefined) {
        if (this.#continuity?.state === 'complete') this.#tell('quiet', undefined)
        this.#dispatch({ type: 'sweep' })
      }
      this.#heard = 0
      this.#armQuiet(every)
    }, every)
  }

  event(event: TransportStatusEvent | TransportErrorEvent): void {
    if (this.#state.phase === 'disposed') return
    if (event.type !== 'status') {
      this.#out.event(event)
      return
    }
    const d = this.#ctx.diagnostics
    // A gap opens when a socket the stream had open drops: a stream that joins a socket already down
    // (or still dialing) starts blind, and its first backfill covers that, which is no gap of its own.
    if (d?.active && event.status === 'reconnecting' && this.#state.status.status === 'open') d.emit({ type: 'gap', protocol: this.#ctx.protocol ?? '', stream: this.#ctx.keyOf(this.#account), instance: this })
    this.#dispatch({ type: 'status', event, oldestHeld: this.#holdback.oldestHeld(), now: this.#ctx.timers.now(), unsettled: this.#isUnsettled() })
  }

  complete(): void {
    this.#dispatch({ type: 'complete' })
  }

  /** Release: abort the search, clear every timer, write the checkpoint, deliver nothing more. */
  dispose(): void {
    // Known at once, also inside a delivery: the rest of a merge or release stays undelivered and
    // counts in the position the dispose writes (the event itself waits for the running effects).
    // A gap it left open ends with it: it is not the gap of a stream subscribed later.
    if (!this.#stopped) {
      if (this.#ctx.diagnostics?.active) this.#ctx.diagnostics.emit({ type: 'streamEnd', instance: this })
      if (this.settings.verifyMs && this.#ctx.verifiers) this.#ctx.verifiers.streams--
      this.#quiet = this.#ctx.timers.clear(this.#quiet)
    }
    this.#stopped = true
    this.#dispatch({ type: 'dispose' })
  }

  #stopped = false

  /** For the holdback: the subscriber let go; nothing more goes out. */
  get stopped(): boolean {
    return this.#stopped
  }

  /** The subscription ended: disposed and out of the pool (rxjs calls this; no teardown closure per stream). */
  unsubscribe(): void {
    this.dispose()
    this.#ctx.release?.(this)
  }

  /**
   * Runs the reducer and then its effects: the one place the state changes. Effects raise events of
   * their own (a delivery moves the watermark, a checkpoint read synchronously): those wait in a queue
   * until every effect of the event before them ran, so no reduction starts inside another one.
   */
  #dispatch(event: StreamEvent): void {
    if (this.#dispatching !== 0) {
      ;(this.#raised ??= []).push(event)
      return
    }
    this.#dispatching = APPLYING
    try {
      this.#apply(event)
      const raised = this.#raised
      // Read by index: events raised by these events join the same queue.
      if (raised) for (let i = 0; i < raised.length; i++) this.#apply(raised[i]!)
      // Written once the queue is empty, so it holds the watermark the deliveries moved.
      if (this.#dispatching === WRITE_DUE) this.#writeCheckpoint()
    } finally {
      this.#dispatching = 0
      if (this.#raised) this.#raised.length = 0
    }
  }

  #apply(event: StreamEvent): void {
    if (event.type === 'frame') {
      // The hot path, no reduction: delivered now or held; the watermark it moves is one (see 'delivered').
      if (this.#state.phase !== 'disposed') this.#delivered(this.#holdback.push(event.notification), this.#raised?.length ?? 0)
      return
    }
    const was = this.#state
    const { state, effects } = reduceResume(was, event)
    this.#state = state
    // The timers follow the state: the one record of what is armed is the state's.
    if (state.timers !== was.timers) this.#syncTimers(was.timers, state.timers)
    // Polls of the endpoint are spread over the streams about to poll or polling, at their pace (a
    // disposed stream polls no more).
    if (state.polling !== was.polling || state.timers !== was.timers || state.phase !== was.phase) this.#ctx.polling?.(this, pollInterval(state, this.#isUnsettled()))
    for (const effect of effects) this.#run(effect, event)
    if (state !== was) this.#syncContinuity()
  }

  /** The continuity the state now says, told when it changed (what stays for good stays). */
  #syncContinuity(): void {
    const was = this.#continuity
    const s = this.#state
    // A subscriber that let go (also inside a delivery: the rest of a merge stays undelivered) is told nothing.
    if (this.#stopped || FOR_GOOD.has(was?.reason) || s.phase === 'disposed' || s.status.closeReason === 'client closed') return
    // A drop under a verification is a gap like any other.
    if (s.status.status !== 'open') this.#verifying = false
    const reason = resumeReason(s)
    if ((was && was.reason === reason) || (this.#verifying && reason === 'backfill')) return
    this.#tell(reason, reason === 'closed' ? s.watermark : reason === 'history-unavailable' ? s.gapFrom : undefined)
  }

  #tell(reason: ContinuityReason | undefined, missingFrom: number | undefined): void {
    const c = continuity(INCOMPLETE.has(reason) ? 'incomplete' : reason ? 'catching-up' : 'complete', reason, missingFrom)
    this.#continuity = c
    const d = this.#ctx.diagnostics
    if (d?.active) d.emit({ type: 'continuity', instance: this, state: c.state })
    this.#out.continuity?.(c)
  }

  /** Runs one effect; what it needs beyond the effect (a frame, a backfill's result or failure) is in the event that caused it. */
  #run(effect: ResumeEffect, event: ResumeEvent): void {
    const ctx = this.#ctx
    const holdback = this.#holdback
    switch (effect.type) {
      case 'hold':
        holdback.hold()
        return
      case 'release': {
        const at = this.#raised?.length ?? 0
        this.#delivered(holdback.release(), at)
        return
      }
      case 'split':
        holdback.split()
        return
      case 'discard':
        holdback.discard()
        return
      case 'merge': {
        if (event.type !== 'backfilled') return
        const d = ctx.diagnostics
        const run = d?.active ? running.get(this) : undefined
        const at = this.#raised?.length ?? 0
        const { recovered, stale, newest } = holdback.merge(event.result.notifications, run && ((n) => d!.emit({ type: 'recovered', notification: n, source: run.poll ? 'poll' : 'backfill', readAt: run.readAt })))
        this.#delivered(newest, at)
        ctx.stats.backfills.recovered += recovered
        ctx.stats.backfills.foreign += event.result.foreign
        this.#reportBackfill(event.since, event.result, recovered, stale)
        // What a verification found is a silent loss: the socket was open and never brought it.
        const verified = this.#verifying && recovered > 0
        this.#verifying = false
        if (verified) {
          ctx.stats.continuity.silentLosses += recovered
          ctx.logger?.log('warn', 'silent loss', { stream: ctx.keyOf(this.#account), recovered })
          if (d?.active) d.emit({ type: 'silentLoss', protocol: ctx.protocol ?? '', destination: ctx.destination ?? '', count: recovered })
        }
        // What history could not bring back is missing for good (docs/guide/continuity.md).
        const lost = event.result.truncated ? 'truncated' : ctx.latestStateOnly && !this.settings.latestStateIsWhole && recovered > 0 ? 'latest-state-only' : verified ? 'silent-loss' : undefined
        if (lost && !this.#stopped && !FOR_GOOD.has(this.#continuity?.reason)) this.#tell(lost, event.since)
        if (run) this.#ended(event.result.truncated ? 'truncated' : 'finished', recovered, event.result)
        return
      }
      case 'backfill-failed': {
        if (event.type !== 'backfill-failed') return
        const { cause } = event
        ctx.stats.backfills.failed++
        const error = isServiceError(cause) ? cause : new ServiceError('NETWORK', `Backfill failed: ${String(cause)}`, { cause })
        this.#ended('failed', 0, undefined, error.code)
        this.report(error)
        return
      }
      case 'backfill':
        // A sweep of a stream that is whole verifies it (a retry of a failed one still does).
        if (event.type === 'sweep') this.#verifying = this.#continuity?.state === 'complete' || this.#continuity?.reason === 'quiet'
        this.#backfill(effect.since, effect.poll)
        return
      case 'abort': {
        this.#ended('aborted', 0)
        if (this.#work) {
          this.#work.inFlight?.abort()
          this.#work.inFlight = undefined
          this.#idle()
        }
        return
      }
      case 'forward':
        this.#out.event(effect.polling === undefined ? this.#state.status : { ...this.#state.status, polling: effect.polling })
        return
      case 'announce-polling':
        this.#out.event({ ...this.#state.status, polling: true })
        return
      case 'read-checkpoint':
        if (this.settings.checkpoint) {
          const { timers } = this.#ctx
          readCheckpoint(this.settings.checkpoint, this.#ctx.keyOf(this.#account), timers, this.settings.checkpointTimeoutMs, () => this.#written === ENDED, (e) => this.report(e), (since) => this.#dispatch({ type: 'checkpoint', since }))
        }
        return
      case 'schedule-checkpoint':
        // Written within a second of a move, at most once a second.
        if (this.settings.checkpoint && this.#writeTimer === undefined && this.#written !== ENDED) {
          this.#writeTimer = this.#ctx.timers.set(() => {
            this.#writeTimer = undefined
            this.#writeCheckpoint()
          }, CHECKPOINT_EVERY_MS)
        }
        return
      case 'write-checkpoint':
        this.#dispatching = WRITE_DUE
        return
      case 'close-checkpoint':
        // The last position is written; nothing is read or written afterwards.
        this.#writeCheckpoint()
        this.#written = ENDED
        return
      case 'moved':
        holdback.forget(effect.floor)
        return
      case 'complete':
        this.#out.complete()
        return
    }
  }

  /** Arms the timers whose entry is new, clears the ones whose entry went (see `ResumeState.timers`). */
  #syncTimers(was: ArmedTimers | undefined, now: ArmedTimers | undefined): void {
    for (const timer of TIMERS) {
      const arming = now?.[timer]
      if (arming === was?.[timer]) continue
      if (arming) this.#arm(timer, arming)
      else {
        if (timer === 'sweep') this.#freeSlot()
        if (this.#work) {
          this.#work[timer] = this.#ctx.timers.clear(this.#work[timer])
          this.#idle()
        }
      }
    }
  }

  #arm(timer: TimerName, arming: Arming): void {
    const ctx = this.#ctx
    let ms = arming.spread ? arming.ms + ctx.random() * arming.spread : arming.ms
    // Verifications of a solver's streams (docs/guide/continuity.md): each at its cadence, or every
    // `streams` seconds (± a fifth), in the first free second of the solver's: one a second at most.
    const v = ctx.verifiers
    if (timer === 'sweep' && this.settings.sweepIntervalMs === undefined && v) {
      this.#freeSlot()
      const now = ctx.timers.now()
      let second = Math.ceil((now + Math.max(ms, v.streams * 1_000) * (0.8 + 0.4 * ctx.random())) / 1_000)
      while (v.taken.has(second)) second++
      v.taken.add(second)
      this.#slot = second
      ms = second * 1_000 - now
    }
    const { timers } = ctx
    const work = (this.#work ??= {})
    timers.clear(work[timer])
    work[timer] = timers.set(() => {
      work[timer] = undefined
      if (timer === 'sweep') this.#freeSlot()
      this.#idle()
      if (timer === 'poll') this.#dispatch({ type: 'poll', clientClosed: this.#ctx.clientClosed?.() ?? false, oldestHeld: this.#holdback.oldestHeld(), now: this.#ctx.timers.now(), unsettled: this.#isUnsettled() })
      else this.#dispatch({ type: timer })
    }, ms)
  }

  /** Its verification's second is free again (it ran, or it was called off). */
  #freeSlot(): void {
    if (this.#slot !== undefined) this.#ctx.verifiers?.taken.delete(this.#slot)
    this.#slot = undefined
  }

  #backfill(since: number, poll: boolean): void {
    const ctx = this.#ctx
    const controller = new AbortController()
    const work = (this.#work ??= {})
    work.inFlight = controller
    ctx.stats.backfills.runs++
    const d = ctx.diagnostics
    const run = d?.active ? { id: d.id(), poll, readAt: 0 } : undefined
    if (run) {
      running.set(this, run)
      d!.emit({ type: 'backfill', phase: 'start', id: run.id, protocol: ctx.protocol ?? '', destination: ctx.destination ?? '', stream: ctx.keyOf(this.#account), instance: this, since, poll })
    }
    this.#status({ state: 'started', since })
    ctx.fetch({ since, maxRows: this.settings.maxBackfillRows, known: (n) => this.#holdback.known(n), signal: controller.signal, poll: poll ? (this.settings.poll?.intervalMs ?? 5_000) : undefined }, this.#account).then(
      (result) => {
        if (controller.signal.aborted) return
        if (run) run.readAt = now()
        work.inFlight = undefined
        this.#idle()
        this.#dispatch({ type: 'backfilled', since, result, now: this.#ctx.timers.now(), unsettled: this.#isUnsettled() })
      },
      (cause: unknown) => {
        if (controller.signal.aborted) return
        work.inFlight = undefined
        this.#idle()
        const retryAfterMs = (cause as { retryAfterMs?: unknown } | undefined)?.retryAfterMs
        this.#dispatch({ type: 'backfill-failed', cause, retryAfterMs: typeof retryAfterMs === 'number' ? retryAfterMs : undefined, backoff: ctx.backoff, jitter: ctx.random(), now: this.#ctx.timers.now(), unsettled: this.#isUnsettled() })
      },
    )
  }

  #reportBackfill(since: number, result: BackfillResult, recovered: number, stale: number): void {
    const ctx = this.#ctx
    if (result.overlong > 0) {
      this.report(
        new ServiceError(
          'INVALID_RESPONSE',
          `History answered pages longer than the size asked: ${result.overlong} rows beyond it were dropped, so this backfill may be incomplete. The service ignores size: fix it, or its configured URL.`,
        ),
      )
    }
    if (result.truncated) {
      ctx.stats.backfills.truncated++
      this.#status({ state: 'truncated', since, recovered, stale, left: result.truncated.left })
      this.report(
        new ServiceError(
          'BACKFILL_TRUNCATED',
          `The backfill from ${since} read its limit of ${this.settings.maxBackfillRows} rows (resume.maxBackfillRows) with ${result.truncated.left} rows of history left, so notifications may be missing: reload the snapshot (search history) or raise maxBackfillRows.`,
        ),
      )
    } else this.#status({ state: 'finished', since, recovered, stale })
  }

  /** Nothing running, armed or unsettled: the working state goes (an idle stream holds none). */
  #idle(): void {
    const work = this.#work
    if (work && !work.inFlight && !work.retry && !work.sweep && !work.poll && !work.unsettled?.size) this.#work = undefined
  }

  #isUnsettled(): boolean {
    return (this.#work?.unsettled?.size ?? 0) > 0
  }

  /** For the holdback: the client's counters. */
  get stats(): ClientStats {
    return this.#ctx.stats
  }

  /** For the holdback: an error to report (the seam hears it once). */
  report(error: ServiceError): void {
    const d = this.#ctx.diagnostics
    if (d?.active) d.emit({ type: 'error', code: error.code, protocol: this.#ctx.protocol })
    this.#out.event({ type: 'error', error })
  }

  /** For the holdback: the client's diagnostics seam. */
  get diagnostics(): Diagnostics | undefined {
    return this.#ctx.diagnostics
  }

  /** The seam hears how the backfill it follows ended (`whole`: no gap left, the socket open). */
  #ended(outcome: 'finished' | 'truncated' | 'failed' | 'aborted', recovered: number, result?: BackfillResult, errorCode?: string): void {
    const run = running.get(this)
    if (!run) return
    running.delete(this)
    const s = this.#state
    this.#ctx.diagnostics?.emit({ type: 'backfill', phase: 'end', id: run.id, outcome, rows: result?.rows ?? 0, pages: result?.pages ?? 0, recovered, whole: s.gapFrom === undefined && s.nextGap === undefined && s.status.status === 'open', errorCode })
  }


  /** Writes the position now, when it moved (a stream with a checkpoint store, not ended). */
  #writeCheckpoint(): void {
    this.#writeTimer = this.#ctx.timers.clear(this.#writeTimer)
    const store = this.settings.checkpoint
    if (!store || this.#written === ENDED) return
    const position = this.#position()
    if (position !== undefined && position !== this.#written && writeCheckpoint(store, this.#ctx.keyOf(this.#account), position, (e) => this.report(e))) this.#written = position
  }

  /** The position a resume would be complete from (see {@link positionOf}). */
  #position(): number | undefined {
    return positionOf(this.#state, this.#holdback.oldestHeld(), this.#holdback.delivered)
  }

  /** For `client.inspect()`: built only when someone looks. */
  inspect(account: string): StreamSnapshot {
    // Recording starts when someone looks, so a stream nobody inspects keeps nothing.
    const looked = (this.#looked ??= {})
    looked.recent ??= []
    const { phase, watermark, gapFrom, nextGap, running } = this.#state
    const catchingUp = phase !== 'live' || gapFrom !== undefined || nextGap !== undefined || running !== undefined || isArmed(this.#state, 'retry')
    return { account, phase, watermark, held: this.#holdback.heldCount, catchingUp, continuity: this.#continuity, recent: [...looked.recent], lastBackfill: this.#lastBackfill }
  }

  /** What inspection records: made at the first look (a stream nobody inspects has none). */
  #looked: { recent?: Array<StreamSnapshot['recent'][number]> | undefined } | undefined

  /** Nobody inspects any more: what was recorded is dropped, and nothing is recorded until someone looks again. */
  forgetInspection(): void {
    this.#looked = undefined
  }

  /** For the holdback: a notification goes out. */
  emit(n: Notification): void {
    if (this.settings.poll) {
      // A quote mid-transition (seen, or an outcome not known yet) makes polling faster until it settles.
      const was = this.#isUnsettled()
      if (n.type === 'seen' || n.type === 'unknown') {
        const unsettled = ((this.#work ??= {}).unsettled ??= new Set())
        if (unsettled.size < 256) unsettled.add(n.quoteId)
      } else if (this.#work?.unsettled?.delete(n.quoteId)) this.#idle()
      // A quote mid-transition polls faster: the endpoint's spacing follows.
      if (was !== this.#isUnsettled()) this.#ctx.polling?.(this, pollInterval(this.#state, !was))
    }
    const recent = this.#looked?.recent
    if (recent) {
      if (recent.length === 100) recent.shift()
      recent.push({ quoteId: n.quoteId, type: n.type, lastSeenAction: n.lastSeenAction, modifyTime: n.modifyTime, source: n.source })
    }
    this.#out.notification(n)
  }

  #status(backfill: BackfillStatus): void {
    this.#lastBackfill = backfill
    this.#ctx.logger?.log(backfill.state === 'started' ? 'debug' : backfill.state === 'truncated' ? 'warn' : 'info', `backfill ${backfill.state}`, { stream: this.#ctx.keyOf(this.#account), ...backfill })
    this.#out.event(this.#state.polling ? { ...this.#state.status, backfill, polling: true } : { ...this.#state.status, backfill })
  }
}
