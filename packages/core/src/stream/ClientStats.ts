import type { TransportStats } from '../transport/TransportStats.js'

/**
 * Counters of a client (SPEC §4.1): sockets, subscriptions, frames by fate, reconnects, timers.
 * `received = delivered + dropped.*` always holds.
 *
 * @example
 * const { frames } = client.stats(); console.log(frames.dropped.malformed)
 */
export interface ClientStats extends TransportStats {
  /** timers pending inside the client (linger, backoff, heartbeat, connect timeout, backfill retry); 0 when idle */
  timers: number
}
