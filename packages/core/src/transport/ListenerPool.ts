import type { ResolvedSolver } from '../config/types.js'
import type { Address } from '../utils/address.js'
import type { Lease } from './SocketPool.js'
import type { Timers } from './Timers.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from './TransportEvent.js'
import type { Notification } from '../protocol/types.js'

/**
 * What streams subscribe through: the socket pool of this tab, or (cross-tab) the leader tab's pool
 * reached over a channel. Same contract either way: `acquire` announces the current status, events
 * follow, `release` is idempotent, `close` is terminal.
 */
export interface ListenerPool {
  readonly timers: Timers
  acquire(solver: ResolvedSolver, account: Address, listener: Listener & Lease): void
  release(listener: Listener & Lease): void
  close(): void
}

/**
 * What every subscriber of a pool is: a listener that carries its own lease (where the pool put it),
 * so streams, resume streams and cross-tab forwards never touch the router's fields themselves.
 */
export abstract class PooledListener implements Listener, Lease {
  /** written by the pool only */
  router: Lease['router'] = undefined
  /** written by the pool only */
  route: Lease['route'] = undefined
  abstract notification(notification: Notification): void
  abstract event(event: TransportStatusEvent | TransportErrorEvent): void
  abstract complete(): void
}
