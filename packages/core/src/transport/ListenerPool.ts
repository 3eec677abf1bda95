import type { ResolvedSolver } from '../config/types.js'
import type { Address } from '../utils/address.js'
import type { Lease } from './SocketPool.js'
import type { Timers } from './Timers.js'
import type { Listener } from './TransportEvent.js'

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
