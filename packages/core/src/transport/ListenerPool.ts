import type { ResolvedSolver } from '../config/types.js'
import type { Address } from '../utils/address.js'
import type { Lease } from './SocketPool.js'
import type { Timers } from './Timers.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from './TransportEvent.js'
import type { Notification } from '../protocol/types.js'

/** A history read a resume stream asks for (the stream layer's backfill request, as the pool sees it). */
export interface HistoryAsk {
  /** unix seconds: notifications changed at or after it */
  readonly since: number
  readonly maxRows: number
  /** a poll (history stands in for a socket that is down): the stream's poll interval, ms */
  readonly poll?: number | undefined
  readonly signal: AbortSignal
  /** whether the asking stream delivered this one already (such rows do not count against `maxRows`) */
  readonly known?: ((n: Notification) => boolean) | undefined
}

/** What history had for a {@link HistoryAsk} (the stream layer's backfill result). */
export interface HistoryAnswer {
  notifications: Notification[]
  truncated: { left: number } | undefined
  foreign: number
  overlong: number
}

/** Reads history for one account of a solver (the full client's, through its history gate). */
export type HistoryReader = (solver: ResolvedSolver, account: Address, ask: HistoryAsk) => Promise<HistoryAnswer>

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
  /**
   * Reads history for a resume stream, where the pool shares it (cross-tab: one reader per stream key
   * per browser, the leader tab, whose answer every tab's stream gets); absent: the stream reads itself.
   */
  history?(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer>
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
