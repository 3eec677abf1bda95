import type { ClientStats } from './ClientStats.js'
import type { SocketSnapshot } from '../transport/SocketSnapshot.js'

export type { SocketSnapshot, StreamSnapshot } from '../transport/SocketSnapshot.js'

/**
 * One open quote book as `inspect()` sees it.
 *
 * @example
 * const waiting = snapshot.quoteBooks.filter((b) => !b.ready)
 */
export interface QuoteBookSnapshot {
  account: string
  chainId: number | undefined
  solverId: string | undefined
  /** quotes in the book */
  size: number
  ready: boolean
}

/**
 * What a client is doing now: its sockets with their accounts and resume streams, and its counters.
 *
 * @example
 * client.inspect().subscribe((s) => console.log(s.sockets.length, s.stats.frames.delivered))
 */
export interface ClientSnapshot {
  at: number
  sockets: SocketSnapshot[]
  /** the quote books open now (`client.quotes`): account, solver, quotes held, ready */
  quoteBooks: QuoteBookSnapshot[]
  stats: ClientStats
}
