import type { Continuity } from './Continuity.js'
import type { SocketStatus } from './TransportEvent.js'

/**
 * One resume stream as `inspect()` sees it: where it is and what it holds.
 *
 * @example
 * const held = snapshot.sockets.flatMap((s) => s.streams).reduce((n, s) => n + s.held, 0)
 */
export interface StreamSnapshot {
  account: string
  /** `live`, `reading-checkpoint`, `holding`, `backfilling` (see docs/architecture.md) */
  phase: string
  /** the newest `modify_time` delivered (unix seconds) */
  watermark: number
  /** live frames held while a backfill runs */
  held: number
  /**
   * whether it is still catching up: a gap not backfilled yet, a backfill in flight or a retry armed
   * (what tells a stream that is behind from one that settled: a test waits on it, never on a window)
   */
  catchingUp: boolean
  /** what it last told its subscriber of its continuity (docs/guide/continuity.md) */
  continuity: Continuity | undefined
  /** its newest notifications (up to 100, oldest first), recorded from the first time it was inspected */
  recent: ReadonlyArray<{ readonly quoteId: number; readonly type: string; readonly lastSeenAction: string | null; readonly modifyTime: number | null; readonly source: 'live' | 'backfill' }>
  /** the last backfill status this stream reported, if any */
  lastBackfill: { readonly state: 'started' | 'finished' | 'truncated'; readonly since: number; readonly recovered?: number; readonly stale?: number; readonly left?: number } | undefined
}

/**
 * One socket as `inspect()` sees it.
 *
 * @example
 * for (const s of snapshot.sockets) console.log(s.url, s.state, s.accounts.length)
 */
export interface SocketSnapshot {
  /** which socket: `<chainId>/<solverId>#<n>` (rasa may run several hubs for one solver) */
  key: string
  chainId: number
  solverId: string
  protocol: string
  /** credentials and query values `***` */
  url: string
  state: SocketStatus
  attempt: number
  closeCode: number | undefined
  closeReason: string | undefined
  /** lowercase accounts routed on this socket */
  accounts: string[]
  /** the resume streams among its subscribers */
  streams: StreamSnapshot[]
  /** replaces this socket as if the network had dropped it: the streams see reconnecting, then open, and resume streams backfill (for devtools) */
  drop(): void
}

