import { ServiceError } from '../../errors/ServiceError.js'
import { PLAUSIBLE_POSITION, isPlausiblePosition } from '../../utils/plausibleTime.js'
import { MAX_TIMEOUT_MS } from '../../utils/setLongTimeout.js'
import type { CheckpointStore } from './CheckpointStore.js'
import { describe } from '../../utils/address.js'

/**
 * Where a resume stream starts and how far it may go (docs/architecture.md, "Resume").
 *
 * @example
 * client.notifications({ account }, { resume: { since: snapshot.takenAt, checkpoint: webStorageCheckpoints() } })
 */
export interface ResumeOptions {
  /** unix seconds: backfill from here at once on first subscription (e.g. when the app's history snapshot was taken) */
  since?: number | undefined
  /** where the position is kept across reloads and restarts; read on first subscription when `since` is not given */
  checkpoint?: CheckpointStore | undefined
  /** history rows one backfill may read, not counting rows already delivered (10,000) */
  maxBackfillRows?: number | undefined
  /** live frames held while a backfill runs; at the cap they go out in order (10,000) */
  maxHeldFrames?: number | undefined
  /** re-run the backfill this often while connected, for feeds that lose frames on a healthy socket (off) */
  sweepIntervalMs?: number | undefined
  /**
   * Verification while the socket is open (docs/guide/continuity.md): now and then the stream reads the
   * newest of its history and delivers what it never received (a silent loss: counted, reported). Each
   * stream every `intervalMs` (60,000) or, with more streams on the solver, every `streams × 1 s`: at
   * most one verification a second per solver. `false` turns it off (a relay's default).
   */
  verify?: { intervalMs?: number | undefined } | boolean | undefined
  /**
   * A market that should tick: when the stream hears nothing for this long (ms) while its socket is
   * open, it verifies at once and says `catching-up` (`quiet`) meanwhile (docs/guide/continuity.md). Off.
   */
  expectedEveryMs?: number | undefined
  /** recent notifications de-duplication remembers (2,048) */
  dedupeWindow?: number | undefined
  /**
   * A second source while the socket is down: once it has not been open for `afterMs` (5,000), history
   * is polled every `intervalMs` (5,000; 1,500 while one of the stream's quotes is mid-transition)
   * through the same backfill, de-duplication and order. A socket refused for good (`closed`) keeps
   * polling only with `whenClosed`. `false` turns it off.
   */
  poll?: { afterMs?: number | undefined; intervalMs?: number | undefined; whenClosed?: boolean | undefined } | false | undefined
}

/**
 * Set on the resume options of a quote book: it needs only each quote's latest state, so history that
 * keeps only that (rasa) leaves it whole (docs/guide/continuity.md). Not an option apps set.
 */
export const LATEST_STATE_IS_WHOLE: unique symbol = Symbol('latestStateIsWhole')

/** Resume options validated, with every default applied. */
export interface ResumeSettings {
  checkpoint: CheckpointStore | undefined
  maxBackfillRows: number
  maxHeldFrames: number
  sweepIntervalMs: number | undefined
  /** each stream's verification cadence before the per-solver bound (undefined: off) */
  verifyMs?: number | undefined
  /** how long a silent stream waits before it verifies (`resume.expectedEveryMs`; undefined: off) */
  expectedEveryMs?: number | undefined
  dedupeWindow: number
  /** how long a checkpoint `get` may take before the stream starts without it (the search deadline) */
  checkpointTimeoutMs: number
  poll: { afterMs: number; intervalMs: number; whenClosed: boolean } | undefined
  /** a quote book's stream (see {@link LATEST_STATE_IS_WHOLE}) */
  latestStateIsWhole?: boolean | undefined
}

/**
 * The one place resume options are checked and completed: nonsense is `INVALID_PARAMETERS` at the
 * call, naming the option; what is not given gets its default.
 */
export function resolveResumeSettings(resume: true | ResumeOptions, checkpointTimeoutMs: number): ResumeSettings {
  if (resume === true) resume = {}
  if (typeof resume !== 'object' || resume === null) throw new ServiceError('INVALID_PARAMETERS', `resume must be true or an object of resume options, got ${describe(resume)}`)
  const options = resume
  const check = (name: keyof ResumeOptions, ok: (v: number) => boolean, what: string) => {
    const value = options[name]
    if (value !== undefined && (typeof value !== 'number' || !ok(value))) {
      throw new ServiceError('INVALID_PARAMETERS', `resume.${name} must be ${what}, got ${describe(value)}`)
    }
  }
  const positiveInteger = (v: number) => Number.isInteger(v) && v > 0
  check('since', (v) => isPlausiblePosition(v), `${PLAUSIBLE_POSITION} (got milliseconds? divide by 1000)`)
  check('maxBackfillRows', positiveInteger, 'a positive integer')
  check('maxHeldFrames', positiveInteger, 'a positive integer')
  check('sweepIntervalMs', (v) => v > 0 && v <= MAX_TIMEOUT_MS, `a positive number of milliseconds up to ${MAX_TIMEOUT_MS}`)
  check('dedupeWindow', positiveInteger, 'a positive integer')
  check('expectedEveryMs', (v) => v >= 1_000 && v <= MAX_TIMEOUT_MS, `a number of milliseconds from 1000 to ${MAX_TIMEOUT_MS}`)
  const verify: unknown = options.verify
  const every = typeof verify === 'object' && verify !== null ? (verify as { intervalMs?: unknown }).intervalMs : undefined
  if (
    !(verify === undefined || verify === false || verify === true || (typeof verify === 'object' && verify !== null)) ||
    (every !== undefined && (typeof every !== 'number' || !(every >= 1_000) || every > MAX_TIMEOUT_MS))
  ) {
    throw new ServiceError('INVALID_PARAMETERS', `resume.verify must be false or { intervalMs } with intervalMs from 1000 to ${MAX_TIMEOUT_MS} ms, got ${describe(every ?? verify)}`)
  }
  const poll = options.poll
  if (poll !== undefined && poll !== false) {
    if (typeof poll !== 'object' || poll === null) throw new ServiceError('INVALID_PARAMETERS', `resume.poll must be false or { afterMs?, intervalMs?, whenClosed? }, got ${describe(poll)}`)
    for (const name of ['afterMs', 'intervalMs'] as const) {
      const value = poll[name]
      if (value !== undefined && (typeof value !== 'number' || !(value >= (name === 'afterMs' ? 0 : 100)) || value > MAX_TIMEOUT_MS)) {
        throw new ServiceError('INVALID_PARAMETERS', `resume.poll.${name} must be a number of milliseconds${name === 'intervalMs' ? ' of at least 100' : ''}, got ${describe(value)}`)
      }
    }
  }
  if (options.checkpoint !== undefined && (typeof options.checkpoint?.get !== 'function' || typeof options.checkpoint?.set !== 'function')) {
    throw new ServiceError('INVALID_PARAMETERS', 'resume.checkpoint must be a CheckpointStore { get(key), set(key, modifyTime) }, e.g. memoryCheckpoints()')
  }
  return interned({
    checkpoint: options.checkpoint,
    maxBackfillRows: options.maxBackfillRows ?? 10_000,
    maxHeldFrames: options.maxHeldFrames ?? 10_000,
    sweepIntervalMs: options.sweepIntervalMs,
    verifyMs: verify === false ? undefined : ((every as number | undefined) ?? 60_000),
    expectedEveryMs: options.expectedEveryMs,
    dedupeWindow: options.dedupeWindow ?? 2_048,
    checkpointTimeoutMs,
    poll: poll === false ? undefined : { afterMs: poll?.afterMs ?? 5_000, intervalMs: poll?.intervalMs ?? 5_000, whenClosed: poll?.whenClosed === true },
    latestStateIsWhole: (options as { [LATEST_STATE_IS_WHOLE]?: boolean })[LATEST_STATE_IS_WHOLE] === true,
  })
}

/** the settings resolved last (one object, and the store it names, kept until other options come) */
let last: ResumeSettings | undefined
/**
 * Streams resolved with the same options share one settings object (a stream's own `since` is not in
 * it): a relay opens thousands of streams alike, each would otherwise hold its own copy.
 */
function interned(s: ResumeSettings): ResumeSettings {
  const l = last
  const samePoll = l?.poll === s.poll || (l?.poll && s.poll && l.poll.afterMs === s.poll.afterMs && l.poll.intervalMs === s.poll.intervalMs && l.poll.whenClosed === s.poll.whenClosed)
  if (
    l &&
    samePoll &&
    l.checkpoint === s.checkpoint &&
    l.maxBackfillRows === s.maxBackfillRows &&
    l.maxHeldFrames === s.maxHeldFrames &&
    l.sweepIntervalMs === s.sweepIntervalMs &&
    l.verifyMs === s.verifyMs &&
    l.expectedEveryMs === s.expectedEveryMs &&
    l.dedupeWindow === s.dedupeWindow &&
    l.checkpointTimeoutMs === s.checkpointTimeoutMs &&
    l.latestStateIsWhole === s.latestStateIsWhole
  )
    return l
  last = Object.freeze(s)
  return s
}
