import type { ServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'
import type { TransportStatusEvent } from '../transport/TransportEvent.js'

/**
 * A status change of the socket behind a stream, with why and what comes next.
 *
 * @example
 * if (e.type === 'status' && e.status === 'reconnecting') console.log(`retry #${e.attempt} in ${e.retryInMs} ms`)
 */
export interface StatusEvent extends TransportStatusEvent {
  /** resume streams only: a backfill of what was missed while disconnected started, or finished with `recovered` notifications */
  readonly backfill?: { state: 'started' } | { state: 'finished'; recovered: number }
}

/**
 * Everything a live stream reports: notifications, status changes and (non-fatal) errors.
 *
 * @example
 * client.events({ account }).subscribe((e) => { if (e.type === 'error') console.warn(e.error.code) })
 */
export type NotificationEvent =
  | { readonly type: 'notification'; readonly notification: Notification }
  | StatusEvent
  | { readonly type: 'error'; readonly error: ServiceError }
