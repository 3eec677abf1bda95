import type { ServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'

/**
 * Connection state of the socket behind a stream (docs/architecture.md, "Connection"): `idle` nothing subscribed, `connecting`
 * a dial in progress, `open` open and the subscribe frame sent, `reconnecting` waiting for the next
 * dial, `closed` terminal.
 *
 * @example
 * client.status({ account }).subscribe((s: SocketStatus) => console.log(s))
 */
export type SocketStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed'

/** A connection state change as the transport reports it; streams may add detail (backfill). */
export interface TransportStatusEvent {
  readonly type: 'status'
  readonly status: SocketStatus
  /** Reconnect attempt number: 0 for the first dial, 1 for the first retry, … */
  readonly attempt: number
  readonly retryInMs?: number
  readonly closeCode?: number
  readonly closeReason?: string
}

/** A transport problem a subscriber is told about; the stream goes on. */
export interface TransportErrorEvent {
  readonly type: 'error'
  readonly error: ServiceError
}

/** What the transport delivers to one subscriber of an account. */
export type TransportEvent = { readonly type: 'notification'; readonly notification: Notification } | TransportStatusEvent | TransportErrorEvent

/**
 * One subscriber of an account on a socket. Notifications come by their own method, so the frame path
 * allocates no event object for subscribers that only want notifications (the per-frame cost is what matters at 10,000 accounts).
 */
export interface Listener {
  /** one object per frame, shared by every subscriber of the account */
  notification(notification: Notification): void
  event(event: TransportStatusEvent | TransportErrorEvent): void
  complete(): void
}
