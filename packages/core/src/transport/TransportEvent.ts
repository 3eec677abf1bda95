import type { ServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'

/**
 * Connection state of the socket behind a stream (SPEC §4.3): `idle` nothing subscribed, `connecting`
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

/** What the transport delivers to one subscriber of an account. */
export type TransportEvent =
  | { readonly type: 'notification'; readonly notification: Notification }
  | TransportStatusEvent
  | { readonly type: 'error'; readonly error: ServiceError }

/** One subscriber of an account on a socket. */
export interface Listener {
  event(event: TransportEvent): void
  complete(): void
}
