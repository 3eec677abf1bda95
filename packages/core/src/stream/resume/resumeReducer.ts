import { backoffDelay } from '../../transport/backoffDelay.js'
import type { TransportStatusEvent } from '../../transport/TransportEvent.js'
import type { BackfillResult } from '../../search/backfill.js'
import type { ResumeSettings } from './resumeOptions.js'

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

/** A stream's timers: a backfill's retry, a sweep (or verification), a poll of history. */
export type TimerName = 'retry' | 'sweep' | 'poll'

/** Every timer name, in one order. */
export const TIMERS: readonly TimerName[] = ['retry', 'sweep', 'poll']

/** What the reducer reads of the stream's settings (the settings object itself: nothing is copied per stream). */
export type ResumeConfig = Readonly<Pick<ResumeSettings, 'sweepIntervalMs' | 'verifyMs' | 'expectedEveryMs' | 'poll'>> & { readonly checkpoint: unknown }

/**
 * Everything a resume stream decides from, as one immutable value: only {@link reduceResume} makes a
 * new one. Times are unix seconds except `downSince` (milliseconds).
 */
export interface ResumeState {
  readonly config: ResumeConfig
  readonly phase: ResumePhase
  /** the socket's last status event (what the stream forwards again, with `polling` or a backfill's status) */
  readonly status: TransportStatusEvent
  /** the newest plausible `modify_time` delivered (the subscription's start while nothing was) */
  readonly watermark: number
  /** where the next backfill starts: the watermark at the first gap no backfill has covered yet */
  readonly gapFrom: number | undefined
  /** a gap that opened while a backfill ran (the socket dropped under it): the next one's start */
  readonly nextGap: number | undefined
  /** where the running (or last) backfill or poll started: a poll's gap stays open from there */
  readonly sweepFrom: number
  /**
   * where the next sweep or verification starts: what no backfill read since (a reconnect backfill
   * from the drop leaves what came before it unread, and a frame the open socket never brought may be there)
   */
  readonly verifyFrom: number
  /** the `since` of the backfill running, if one is */
  readonly running: number | undefined
  /**
   * Its socket's first open: `unseen` (nothing yet; a stream that joins an open socket stays here
   * until the open), `dialing` (it saw the socket dial first: a gap from subscribing is open until the
   * first open) or `opened`.
   */
  readonly firstOpen: 'unseen' | 'dialing' | 'opened'
  /** history is the source while the socket is not open (`resume.poll`) */
  readonly polling: boolean
  /** refused for good, and `poll.whenClosed` keeps the stream on history alone */
  readonly closedForGood: boolean
  /** backfills failed in a row (the retry's backoff) */
  readonly failures: number
  /** when the socket was last seen going down, or the stream started (ms): polling begins `poll.afterMs` after */
  readonly downSince: number
  /**
   * The timers the stream has armed, each as it was asked for (undefined when none: thousands of idle
   * streams on a relay hold nothing). The stream keeps its handles in step with this value: a timer
   * whose entry changed (a new object) is armed again, one whose entry went is cleared.
   */
  readonly timers: ArmedTimers | undefined
}

/** A timer as the reducer asks for it: after `ms`, plus a random share of `spread` when given (polls: streams that went down together never poll in lockstep). */
export interface Arming {
  readonly ms: number
  readonly spread?: number | undefined
}

/** The armed timers of a stream, by name. */
export type ArmedTimers = { readonly [T in TimerName]?: Arming | undefined }

/**
 * What happens to a stream. `oldestHeld` is the oldest plausible `modify_time` of the live frames
 * held when the event happened (a gap must not start after a frame that was never delivered);
 * `now` is the client's monotonic clock in milliseconds (`Timers.now`: only differences of it count); `unsettled`: one of the stream's quotes is
 * mid-transition (polled faster).
 */
export type ResumeEvent =
  /** the stream is in the pool; `since` is where its options said to resume from */
  | { readonly type: 'start'; readonly since: number | undefined }
  /**
   * notifications went out (a live frame, a release, a merge): the newest plausible `modify_time` of
   * them. A live frame itself is no event: it changes nothing the stream decides from, so it goes to
   * the holdback without a reduction, and only the watermark it moves is reduced (one run per frame).
   */
  | { readonly type: 'delivered'; readonly modifyTime: number }
  | { readonly type: 'status'; readonly event: TransportStatusEvent; readonly oldestHeld: number | undefined; readonly now: number; readonly unsettled: boolean }
  | { readonly type: 'checkpoint'; readonly since: number | undefined }
  | { readonly type: 'backfilled'; readonly since: number; readonly result: BackfillResult; readonly now: number; readonly unsettled: boolean }
  | {
      readonly type: 'backfill-failed'
      readonly cause: unknown
      readonly retryAfterMs: number | undefined
      /** the client's reconnect backoff, and the random draw its jitter takes */
      readonly backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number }
      readonly jitter: number
      readonly now: number
      readonly unsettled: boolean
    }
  | { readonly type: 'retry' }
  | { readonly type: 'sweep' }
  | { readonly type: 'poll'; readonly clientClosed: boolean; readonly oldestHeld: number | undefined; readonly now: number; readonly unsettled: boolean }
  | { readonly type: 'complete' }
  | { readonly type: 'dispose' }

/** What the stream does about an event, in order. */
export type ResumeEffect =
  /** live frames wait from now on */
  | { readonly type: 'hold' }
  /** what is held goes out, in order, and live frames flow again */
  | { readonly type: 'release' }
  /** the socket dropped under a running backfill: frames held from now on wait for the next one */
  | { readonly type: 'split' }
  /** what is held is dropped undelivered (the stream ended) */
  | { readonly type: 'discard' }
  /** the finished backfill's rows and the held frames go out together, once each, in order, and it is reported (`finished` or `truncated`, with its errors) */
  | { readonly type: 'merge' }
  /** the failed backfill is reported (an `error` event) */
  | { readonly type: 'backfill-failed' }
  /** a backfill starts from `since`; `poll`: history stands in for a socket that is down (polls are spread per endpoint) */
  | { readonly type: 'backfill'; readonly since: number; readonly poll: boolean }
  /** the running backfill is stopped */
  | { readonly type: 'abort' }
  /** the status event goes to the subscriber, marked `polling` when given */
  | { readonly type: 'forward'; readonly polling: boolean | undefined }
  /** the last status goes out again, now `polling: true` */
  | { readonly type: 'announce-polling' }
  | { readonly type: 'read-checkpoint' }
  /** the position changed: written within a second */
  | { readonly type: 'schedule-checkpoint' }
  | { readonly type: 'write-checkpoint' }
  /** the last position is written and the writer stops */
  | { readonly type: 'close-checkpoint' }
  /** the watermark moved: de-duplication may forget what is older than `floor` */
  | { readonly type: 'moved'; readonly floor: number }
  /** the stream ends for its subscriber */
  | { readonly type: 'complete' }

/** Poll interval while one of the stream's quotes is mid-transition (`resume.poll`). */
const UNSETTLED_POLL_MS = 1_500

/**
 * How often a stream polls now, or undefined when it does not poll (its socket is open, or polling is
 * off): what the endpoint's gate spaces polls by. A stream counts from the moment its first poll is
 * armed (not from its first poll: the first of a burst of streams going down together would otherwise
 * see only itself), at the pace of a quote mid-transition when it has one.
 *
 * @example
 * ctx.polling(stream, pollInterval(state, unsettled))
 */
export function pollInterval(s: ResumeState, unsettled: boolean): number | undefined {
  const poll = s.config.poll
  if (!poll || s.phase === 'disposed' || !(s.polling || isArmed(s, 'poll'))) return undefined
  return unsettled ? Math.min(UNSETTLED_POLL_MS, poll.intervalMs) : poll.intervalMs
}

/** The status a stream assumes until its first status event: shared, every stream starts there. */
const CONNECTING: TransportStatusEvent = Object.freeze({ type: 'status', status: 'connecting', attempt: 0 })

const NONE: readonly ResumeEffect[] = []
const HOLD: ResumeEffect = { type: 'hold' }
const RELEASE: ResumeEffect = { type: 'release' }
const SCHEDULE: ResumeEffect = { type: 'schedule-checkpoint' }
const MERGE: ResumeEffect = { type: 'merge' }
const FAILED: ResumeEffect = { type: 'backfill-failed' }

/**
 * A new stream's state: live, its position at `start` (seconds), its socket not open yet.
 *
 * @example
 * const state = initialResumeState(config, Math.floor(Date.now() / 1000) - 2, Date.now())
 */
export function initialResumeState(config: ResumeConfig, start: number, now: number): ResumeState {
  // `downSince` only matters to polling: 0 (a small integer, stored without a box) when it is off.
  return {
    config,
    phase: 'live',
    status: CONNECTING,
    watermark: start,
    gapFrom: undefined,
    nextGap: undefined,
    sweepFrom: start,
    verifyFrom: start,
    running: undefined,
    firstOpen: 'unseen',
    polling: false,
    closedForGood: false,
    failures: 0,
    downSince: config.poll ? now : 0,
    timers: undefined,
  }
}

type Draft = { -readonly [K in keyof ResumeState]: ResumeState[K] }

/**
 * A state's copy, field by field: a literal keeps every field in the object (a spread copy puts most
 * in a separate property array, ~0.1 KiB more per stream, thousands of them on a relay).
 */
function copy(s: ResumeState): Draft {
  return {
    config: s.config,
    phase: s.phase,
    status: s.status,
    watermark: s.watermark,
    gapFrom: s.gapFrom,
    nextGap: s.nextGap,
    sweepFrom: s.sweepFrom,
    verifyFrom: s.verifyFrom,
    running: s.running,
    firstOpen: s.firstOpen,
    polling: s.polling,
    closedForGood: s.closedForGood,
    failures: s.failures,
    downSince: s.downSince,
    timers: s.timers,
  }
}

/**
 * Every decision of a resume stream (docs/architecture.md, "Resume"), as one pure function: the next
 * state and what to do, in order. It reads nothing but its arguments and changes neither; the stream
 * runs the effects (holdback, timers, history, checkpoint, events), and what they observe comes back
 * as events.
 *
 * @example
 * const { state: next, effects } = reduceResume(state, { type: 'status', status: 'open', clientClosed: false, oldestHeld: undefined, now: Date.now() })
 */
export function reduceResume(state: ResumeState, event: ResumeEvent): { state: ResumeState; effects: readonly ResumeEffect[] } {
  if (state.phase === 'disposed') return { state, effects: NONE }
  if (event.type === 'delivered' && event.modifyTime <= state.watermark) return { state, effects: NONE }
  const s = copy(state)
  const fx: ResumeEffect[] = []
  step(s, event, fx)
  return { state: s, effects: fx }
}

function step(s: Draft, event: ResumeEvent, fx: ResumeEffect[]): void {
  const { config } = s
  switch (event.type) {
    case 'start':
      if (event.since !== undefined) startFrom(s, event.since, fx)
      else if (config.checkpoint) {
        // Live frames wait for the position (a store that answers at once ends this phase at once).
        s.phase = 'reading-checkpoint'
        fx.push(HOLD, { type: 'read-checkpoint' })
      }
      return
    case 'checkpoint':
      if (s.phase !== 'reading-checkpoint') return
      s.phase = 'live'
      if (event.since !== undefined) startFrom(s, s.gapFrom === undefined ? event.since : Math.min(s.gapFrom, event.since), fx)
      else if (s.gapFrom === undefined) fx.push(RELEASE)
      else afterHold(s, fx)
      return
    case 'delivered':
      s.watermark = event.modifyTime
      // Memory bounded by time: de-duplication forgets what no later backfill can return again.
      fx.push({ type: 'moved', floor: floorOf(s) }, SCHEDULE)
      return
    case 'status':
      onStatus(s, event, fx)
      return
    case 'backfilled':
      onBackfilled(s, event, fx)
      return
    case 'backfill-failed': {
      s.running = undefined
      // The gap that opened meanwhile is later than the one this attempt was for: the retry covers both.
      s.nextGap = undefined
      // Live frames flow at once; the retry still starts from the same gap.
      s.phase = 'live'
      fx.push(FAILED, RELEASE)
      const delay = Math.max(backoffDelay(s.failures++, event.backoff, () => event.jitter), event.retryAfterMs ?? 0)
      arm(s, 'retry', delay)
      if (s.polling) {
        // A poll armed while this one ran would ask again before the service said it may (Retry-After).
        if (event.retryAfterMs !== undefined) disarm(s, 'poll')
        armPoll(s, event, event.retryAfterMs)
      }
      return
    }
    case 'retry':
      disarm(s, 'retry')
      if (s.status.status === 'open') startBackfill(s, fx)
      return
    case 'poll':
      disarm(s, 'poll')
      if (s.closedForGood && event.clientClosed) {
        // The client was closed while history was this stream's only source: it ends like the others.
        s.closedForGood = false
        complete(s, fx)
        return
      }
      if (s.status.status === 'open') return
      if (s.running !== undefined) {
        armPoll(s, event)
        return
      }
      if (!s.polling) {
        s.polling = true
        fx.push({ type: 'announce-polling' })
      }
      s.gapFrom ??= gapStart(s, event.oldestHeld)
      startBackfill(s, fx, true)
      return
    case 'sweep':
      disarm(s, 'sweep')
      if (s.status.status !== 'open' || s.running !== undefined) {
        armSweep(s)
        return
      }
      s.gapFrom ??= s.verifyFrom
      startBackfill(s, fx)
      return
    case 'complete':
      // Refused for good, with `poll.whenClosed`: history stays the source until the app lets go.
      if (!s.closedForGood) complete(s, fx)
      return
    case 'dispose':
      // The last position is written while what is held still counts: a reload must backfill it.
      fx.push({ type: 'close-checkpoint' }, { type: 'discard' })
      abort(s, fx)
      end(s, fx)
      return
  }
}

function onStatus(s: Draft, event: Extract<ResumeEvent, { type: 'status' }>, fx: ResumeEffect[]): void {
  const { status } = event.event
  if (status === 'open') disarm(s, 'poll')
  // Polls start only while polling and the socket is down: one still running at the open is a poll.
  const pollRunning = status === 'open' && s.polling && s.running !== undefined
  if (status === 'open' && s.polling) {
    // The socket is back: polling stops (the reconnect backfill closes what is left of the gap).
    s.polling = false
    fx.push({ type: 'forward', polling: false })
  } else fx.push({ type: 'forward', polling: s.polling ? true : undefined })
  // Only polling reads it (a stream without polling keeps the number it started with: no box per stream).
  if (s.status.status === 'open' && status !== 'open' && s.config.poll) s.downSince = event.now
  s.status = event.event
  if (status === 'connecting' || status === 'reconnecting') armPoll(s, event)
  if (status === 'connecting' && s.firstOpen === 'unseen') {
    s.firstOpen = 'dialing'
    // Its gap (from subscribing) is open until the first open: written within a second, like a drop's.
    fx.push(SCHEDULE)
  }
  if (status === 'reconnecting') {
    // A gap opens here, also before the first open: the stream's position began when it was
    // subscribed (the watermark starts there), so what the server stored meanwhile is backfilled.
    const start = gapStart(s, event.oldestHeld)
    if (s.running !== undefined) {
      // The running backfill goes on (history does not need the socket): throwing its progress away
      // on every drop would leave a stream that drops faster than one round trip holding for ever.
      s.nextGap = s.nextGap === undefined ? start : Math.min(s.nextGap, start)
      fx.push({ type: 'split' })
    } else s.gapFrom = s.gapFrom === undefined ? start : Math.min(s.gapFrom, start)
    // The position may have moved back to the gap: written within a second (a tab killed now still
    // resumes from it). Live frames keep waiting: released now they would sort before older
    // transitions the next backfill finds.
    fx.push(SCHEDULE, HOLD)
    disarm(s, 'retry')
    disarm(s, 'sweep')
    if (s.phase === 'live') s.phase = 'holding'
  } else if (status === 'open') {
    // Subscribed while the socket was still dialing: what was stored until it opened is a gap like any
    // other, from the stream's position (its start, `since` or checkpoint). One that joined an open socket has none.
    if (s.firstOpen === 'dialing' && s.gapFrom === undefined && s.phase !== 'reading-checkpoint') s.gapFrom = gapStart(s, event.oldestHeld)
    s.firstOpen = 'opened'
    if (pollRunning) {
      // A poll may wait for the history gate a poll interval longer than a backfill (polls are spread),
      // and behind a Retry-After it did: the new socket's frames, held for it, waited past
      // search.timeoutMs. It stops; the reconnect backfill reads its gap instead, on a backfill's deadline.
      abort(s, fx)
    } else if (s.running !== undefined) {
      // A backfill that runs across the open (a poll, or one the socket dropped under) read history as
      // it stood when its request arrived: what was stored after that and before this subscription is
      // in neither. The next backfill covers it, from where the stream stands now, and the frames of
      // the new socket wait for that one.
      const start = gapStart(s, event.oldestHeld)
      s.nextGap = s.nextGap === undefined ? start : Math.min(s.nextGap, start)
      fx.push({ type: 'split' })
    }
    // A backfill still running starts the next one when it ends.
    if (s.gapFrom !== undefined && s.phase !== 'reading-checkpoint') startBackfill(s, fx)
    armSweep(s)
  } else if (status === 'closed') {
    if (s.config.poll?.whenClosed && event.event.closeReason !== 'client closed') {
      // Refused for good, but history answers: keep it as the source.
      s.closedForGood = true
      s.gapFrom ??= gapStart(s, event.oldestHeld)
      armPoll(s, event)
      return
    }
    disarm(s, 'poll')
    abort(s, fx)
    fx.push(RELEASE)
    if (s.phase !== 'reading-checkpoint') s.phase = 'live'
    fx.push({ type: 'write-checkpoint' })
  }
}

function onBackfilled(s: Draft, event: Extract<ResumeEvent, { type: 'backfilled' }>, fx: ResumeEffect[]): void {
  const { since } = event
  s.running = undefined
  s.failures = 0
  if (s.gapFrom === since) s.gapFrom = s.nextGap
  else if (s.nextGap !== undefined) s.gapFrom = Math.min(s.gapFrom ?? s.nextGap, s.nextGap)
  // With another gap open (the socket dropped under this backfill), merge delivers what this one
  // covers and keeps holding the rest for the next.
  s.phase = s.nextGap === undefined ? 'live' : 'holding'
  s.nextGap = undefined
  fx.push(MERGE)
  if (s.polling && s.status.status !== 'open') {
    // History answered up to about now; the socket is still down, so a gap stays open from where this poll started.
    s.gapFrom = s.gapFrom === undefined ? s.sweepFrom : Math.min(s.gapFrom, s.sweepFrom)
    armPoll(s, event)
  }
  if (s.gapFrom !== undefined && s.status.status === 'open') startBackfill(s, fx)
  armSweep(s)
}

/** After a position is known: backfill now when subscribed, else hold until the socket is. */
function afterHold(s: Draft, fx: ResumeEffect[]): void {
  if (s.status.status === 'open') startBackfill(s, fx)
  else s.phase = 'holding'
}

/**
 * First load from a known position: hold live frames and backfill as soon as the socket is
 * subscribed (at once when it already is). History is read only after the live subscription is in
 * place, so nothing published in between falls into neither.
 */
function startFrom(s: Draft, since: number, fx: ResumeEffect[]): void {
  s.gapFrom = since
  s.watermark = Math.max(s.watermark, since)
  s.sweepFrom = since
  s.verifyFrom = since
  fx.push(HOLD)
  afterHold(s, fx)
}

function startBackfill(s: Draft, fx: ResumeEffect[], poll = false): void {
  if (s.running !== undefined || s.gapFrom === undefined) return
  s.running = s.gapFrom
  s.phase = 'backfilling'
  s.sweepFrom = s.watermark
  // A backfill from at or before where the next verification would start reads all of that: the next starts here.
  if (s.gapFrom <= s.verifyFrom) s.verifyFrom = s.watermark
  fx.push(HOLD, { type: 'backfill', since: s.gapFrom, poll })
}

function complete(s: Draft, fx: ResumeEffect[]): void {
  abort(s, fx)
  fx.push(RELEASE)
  end(s, fx)
  fx.push({ type: 'complete' })
}

/** Stops the running attempt and any pending retry; what is held stays held. */
function abort(s: Draft, fx: ResumeEffect[]): void {
  if (s.running !== undefined) fx.push({ type: 'abort' })
  s.running = undefined
  disarm(s, 'retry')
}

function end(s: Draft, fx: ResumeEffect[]): void {
  s.phase = 'disposed'
  s.polling = false
  disarm(s, 'sweep')
  disarm(s, 'poll')
  fx.push({ type: 'close-checkpoint' })
}

/**
 * Whether a stream's timer is armed.
 *
 * @example
 * if (!isArmed(state, 'poll')) console.log('not polling on a timer')
 */
export function isArmed(s: ResumeState, timer: TimerName): boolean {
  return s.timers?.[timer] !== undefined
}

/** Arms a timer (again, when it was armed: a new entry is a new timer). */
function arm(s: Draft, timer: TimerName, ms: number, spread?: number): void {
  s.timers = { ...s.timers, [timer]: spread === undefined ? { ms } : { ms, spread } }
}

/** A timer is no longer armed: it fired, or it is called off. */
function disarm(s: Draft, timer: TimerName): void {
  if (!isArmed(s, timer)) return
  const next: ArmedTimers = { ...s.timers, [timer]: undefined }
  s.timers = next.retry || next.sweep || next.poll ? next : undefined
}

/**
 * `sweepIntervalMs`, or `verify` (docs/guide/continuity.md): re-run the backfill on a timer while
 * connected, for feeds that lose frames on a healthy socket (a verification's cadence is stretched per
 * solver by the stream when it arms the timer).
 */
function armSweep(s: Draft): void {
  const every = s.config.sweepIntervalMs ?? s.config.verifyMs
  if (every && !isArmed(s, 'sweep') && s.status.status === 'open') arm(s, 'sweep', every)
}

/**
 * `resume.poll`: while the socket is not open, history is read `afterMs` after it went down, then every
 * `intervalMs` (faster while a quote is mid-transition), through the backfill path.
 */
function armPoll(s: Draft, { now, unsettled }: { readonly now: number; readonly unsettled: boolean }, notBeforeMs = 0): void {
  const poll = s.config.poll
  if (!poll || isArmed(s, 'poll') || s.phase === 'disposed') return
  if (s.status.status === 'open' || (s.status.status === 'closed' && !s.closedForGood)) return
  const every = unsettled ? Math.min(UNSETTLED_POLL_MS, poll.intervalMs) : poll.intervalMs
  // Each poll time carries jitter: a fifth of the interval either side once polling, up to half an
  // interval after `afterMs` for the first (the endpoint's gate spaces them further, HistoryGate).
  const [wait, spread] = s.polling ? [every * 0.8, every * 0.4] : [Math.max(0, poll.afterMs - (now - s.downSince)), every / 2]
  // History said when it may be asked again (Retry-After): no poll before that.
  arm(s, 'poll', Math.max(wait, notBeforeMs), spread)
}

/**
 * Where a gap opening now starts: the watermark (the subscription's start while nothing was
 * delivered), or earlier when frames are held whose server time is earlier (a server clock behind
 * this machine's).
 */
function gapStart(s: ResumeState, oldestHeld: number | undefined): number {
  return oldestHeld === undefined ? s.watermark : Math.min(s.watermark, oldestHeld)
}

/**
 * The oldest position a later backfill (a gap, the next one, a sweep) may start from: de-duplication
 * must remember everything since.
 *
 * @example
 * holdback.forget(floorOf(state))
 */
export function floorOf(s: ResumeState): number {
  let floor = s.watermark
  if (s.gapFrom !== undefined) floor = Math.min(floor, s.gapFrom)
  if (s.nextGap !== undefined) floor = Math.min(floor, s.nextGap)
  if (s.config.sweepIntervalMs || s.config.verifyMs || s.config.expectedEveryMs) floor = Math.min(floor, s.verifyFrom)
  return floor
}

/**
 * The position a resume would be complete from: never later than the start of a gap no backfill
 * covered yet, nor than a frame received but not delivered (a reload then backfills them:
 * at-least-once, never a hole), else the watermark. A stream with no gap, nothing held and nothing
 * delivered has no position (the store is left alone).
 *
 * @example
 * const since = positionOf(state, holdback.oldestHeld(), holdback.delivered)
 */
export function positionOf(s: ResumeState, oldestHeld: number | undefined, delivered: boolean): number | undefined {
  const candidates: number[] = []
  // Subscribed while the socket dials and not open yet: the gap from subscribing is open.
  if (s.firstOpen === 'dialing') candidates.push(gapStart(s, oldestHeld))
  if (s.gapFrom !== undefined) candidates.push(s.gapFrom)
  if (s.nextGap !== undefined) candidates.push(s.nextGap)
  if (oldestHeld !== undefined) candidates.push(oldestHeld)
  if (candidates.length === 0 && !delivered) return undefined
  candidates.push(s.watermark)
  return Math.min(...candidates)
}
