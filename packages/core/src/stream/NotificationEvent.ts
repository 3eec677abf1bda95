import type { ServiceError } from '../errors/ServiceError.js'
import type { Notification, SocketStatus } from '../protocol/types.js'

/**
 * A status change of the socket behind a stream, with why and what comes next.
 *
 * @example
 * if (e.type === 'status' && e.status === 'reconnecting') console.log(`retry #${e.attempt} in ${e.retryInMs} ms`)
 */
export interface StatusEvent {
  type: 'status'
  status: SocketStatus
  /** Reconnect attempt number: 0 for the first dial, 1 for the first retry, … */
  attempt: number
  retryInMs?: number
  closeCode?: number
  closeReason?: string
  /** resume streams only: a backfill of what was missed while disconnected started, or finished with `recovered` notifications */
  backfill?: { state: 'started' } | { state: 'finished'; recovered: number }
}

/**
 * Everything a live stream reports: notifications, status changes and (non-fatal) errors.
 *
 * @example
 * client.events({ account }).subscribe((e) => { if (e.type === 'error') console.warn(e.error.code) })
 */
export type NotificationEvent =
  | { type: 'notification'; notification: Notification }
  | StatusEvent
  | { type: 'error'; error: ServiceError }
