import type { ContinuityReason } from '../../transport/Continuity.js'
import type { ResumeState } from './resumeReducer.js'

/** Backfills failed in a row after which history counts as unavailable (docs/guide/continuity.md). */
export const UNAVAILABLE_AFTER = 3

/**
 * Why a resume stream is not `complete` now, read off its reducer's state alone (no second
 * bookkeeping), or undefined when it is: its socket open, no gap open, no backfill running. What
 * stays for good (`truncated`, `latest-state-only`) the stream keeps itself: a state does not say
 * what a merge brought.
 *
 * @example
 * resumeReason(state) // 'backfill' while a gap is read
 */
export function resumeReason(s: ResumeState): ContinuityReason | undefined {
  const { status } = s.status
  if (s.failures >= UNAVAILABLE_AFTER) return 'history-unavailable'
  if (status === 'closed') return s.closedForGood ? 'socket-down' : 'closed'
  if (status !== 'open') return s.firstOpen === 'opened' ? 'socket-down' : 'connecting'
  return s.phase === 'live' && s.gapFrom === undefined && s.running === undefined ? undefined : 'backfill'
}

/** The reasons that mean something may be missing for good (the rest are being recovered). */
export const INCOMPLETE: ReadonlySet<ContinuityReason | undefined> = new Set(['history-unavailable', 'closed', 'no-resume', 'truncated', 'latest-state-only'])
/** What stays for the stream's life once it happened. */
export const FOR_GOOD: ReadonlySet<ContinuityReason | undefined> = new Set(['no-resume', 'truncated', 'latest-state-only'])
