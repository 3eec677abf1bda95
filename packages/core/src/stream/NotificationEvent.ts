import type { ServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'
import type { TransportStatusEvent } from '../transport/TransportEvent.js'
import type { Continuity } from '../transport/Continuity.js'

/**
 * A status change of the socket behind a stream, with why and what comes next.
 *
 * @example
 * if (e.type === 'status' && e.status === 'reconnecting') console.log(`retry #${e.attempt} in ${e.retryInMs} ms`)
 */
export interface StatusEvent extends TransportStatusEvent {
  /** resume streams only: a backfill of what may have been missed started, finished, or stopped at its row limit */
  readonly backfill?: BackfillStatus
  /** resume streams only: true while history is polled because the socket is not open (see `resume.poll`) */
  readonly polling?: boolean
}

/**
 * The progress of a resume stream's backfill from `since` (unix seconds). `recovered` counts
 * notifications the subscriber had not received live; `stale` those found older than what their quote
 * had already delivered (left out: per-quote order holds); `left` the history rows a truncated
 * backfill could not read.
 *
 * @example
 * if (e.type === 'status' && e.backfill?.state === 'truncated') reloadSnapshot()
 */
export type BackfillStatus =
  | { readonly state: 'started'; readonly since: number }
  | { readonly state: 'finished'; readonly since: number; readonly recovered: number; readonly stale: number }
  | { readonly state: 'truncated'; readonly since: number; readonly recovered: number; readonly stale: number; readonly left: number }

/**
 * Everything a live stream reports: notifications, status changes, (non-fatal) errors, and its
 * continuity whenever it changes (whether what it delivered is whole: docs/guide/continuity.md).
 *
 * @example
 * client.events({ account }).subscribe((e) => { if (e.type === 'error') console.warn(e.error.code) })
 */
export type NotificationEvent =
  | { readonly type: 'notification'; readonly notification: Notification }
  | StatusEvent
  | { readonly type: 'error'; readonly error: ServiceError }
  | { readonly type: 'continuity'; readonly continuity: Continuity }
