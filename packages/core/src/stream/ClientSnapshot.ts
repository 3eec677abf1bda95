import type { ClientStats } from './ClientStats.js'
import type { SocketSnapshot } from '../transport/SocketSnapshot.js'

export type { SocketSnapshot, StreamSnapshot } from '../transport/SocketSnapshot.js'

/**
 * What a client is doing now: its sockets with their accounts and resume streams, and its counters.
 *
 * @example
 * client.inspect().subscribe((s) => console.log(s.sockets.length, s.stats.frames.delivered))
 */
export interface ClientSnapshot {
  at: number
  sockets: SocketSnapshot[]
  stats: ClientStats
}
