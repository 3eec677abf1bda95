import type { TransportStatusEvent } from '../transport/TransportEvent.js'

/**
 * Why a stream is not `complete` (docs/guide/continuity.md):
 *
 * | reason | state | what happened |
 * |---|---|---|
 * | `connecting` | catching-up | the socket has not opened yet |
 * | `socket-down` | catching-up | the socket dropped; a resume stream backfills when it is back (or polls history meanwhile) |
 * | `backfill` | catching-up | a gap is being read from history (or a failed read waits for its retry) |
 * | `silent-loss` | catching-up | a verification found what the open socket never brought; it is delivered now |
 * | `quiet` | catching-up | nothing came for `resume.expectedEveryMs`: the stream verifies at once |
 * | `history-unavailable` | incomplete | history failed three reads in a row; `complete` again when a read succeeds |
 * | `closed` | incomplete | the socket was refused for good and history is not polled (`resume.poll.whenClosed`) |
 * | `no-resume` | incomplete | a live-only stream's socket dropped: what was published meanwhile is gone |
 * | `truncated` | incomplete | a backfill stopped at `resume.maxBackfillRows` with rows left |
 * | `latest-state-only` | incomplete | history that keeps each quote's latest state (rasa) brought a state: the transitions before it are unknown |
 * | `slow-consumer` | incomplete | a `for await` loop fell `highWaterMark` items behind: the stream was released (the loop's last item says so, then it throws `SLOW_CONSUMER`) |
 *
 * `no-resume`, `truncated`, `latest-state-only` and `slow-consumer` stay for the stream's life: a new subscription
 * (after the app reloads what it shows) starts trusted again.
 *
 * @example
 * const label: Record<ContinuityReason, string> = { connecting: 'connecting', 'socket-down': 'offline', backfill: 'syncing', 'silent-loss': 'syncing', quiet: 'checking', 'history-unavailable': 'history down', closed: 'closed', 'no-resume': 'reload', truncated: 'reload', 'latest-state-only': 'reload', 'slow-consumer': 'reload' }
 */
export type ContinuityReason = 'connecting' | 'socket-down' | 'backfill' | 'silent-loss' | 'quiet' | 'history-unavailable' | 'closed' | 'no-resume' | 'truncated' | 'latest-state-only' | 'slow-consumer'

/**
 * Whether what a stream delivered is whole, as one value (docs/guide/continuity.md): `complete`
 * (everything since the stream began has been delivered and the socket is open), `catching-up` (a
 * gap is known and being recovered: show "syncing"), or `incomplete` (something may be missing for
 * good: reload). `since` is when it took this value (ms since the epoch); `missing.from` (unix
 * seconds) where what may be missing starts.
 *
 * @example
 * client.events({ account }).subscribe((e) => { if (e.type === 'continuity') badge.set(e.continuity.state) })
 */
export interface Continuity {
  readonly state: 'complete' | 'catching-up' | 'incomplete'
  readonly since: number
  readonly reason?: ContinuityReason | undefined
  readonly missing?: { readonly from: number; readonly to?: number | undefined } | undefined
}

/**
 * A continuity value as of now.
 *
 * @example
 * continuity('catching-up', 'socket-down') // { state: 'catching-up', since: 1764633600000, reason: 'socket-down' }
 */
export function continuity(state: Continuity['state'], reason?: ContinuityReason, missingFrom?: number): Continuity {
  const c: { -readonly [K in keyof Continuity]: Continuity[K] } = { state, since: Date.now() }
  if (reason) c.reason = reason
  if (missingFrom !== undefined) c.missing = { from: missingFrom }
  return Object.freeze(c)
}

/**
 * A live-only stream's continuity after a status of its socket: it begins at the first open; once the
 * socket drops after that, what was published meanwhile is gone (`no-resume`, for good).
 *
 * @example
 * const next = liveContinuity(previous, { type: 'status', status: 'reconnecting', attempt: 1 })
 */
export function liveContinuity(was: Continuity | undefined, status: TransportStatusEvent): Continuity | undefined {
  if (was?.state === 'incomplete' || status.closeReason === 'client closed') return undefined
  if (status.status === 'open') return was?.state === 'complete' ? undefined : continuity('complete')
  if (was?.state === 'complete') return continuity('incomplete', 'no-resume', Math.floor(Date.now() / 1000))
  // Refused for good before it ever opened: nothing will come.
  if (status.status === 'closed') return continuity('incomplete', 'closed')
  return was ? undefined : continuity('catching-up', 'connecting')
}
