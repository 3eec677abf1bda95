import type { TransportStats } from '../transport/TransportStats.js'

/**
 * Counters of a client: sockets, subscriptions, frames by fate, reconnects, timers,
 * and resume backfills. `received = delivered + dropped.control + malformed + oversize + unrouted`
 * always holds for socket frames; `duplicate` and `stale` count what resume streams held back
 * (per subscription, from live frames and history alike).
 *
 * @example
 * const { frames, backfills } = client.stats(); console.log(frames.dropped.stale, backfills.truncated)
 */
export interface ClientStats extends TransportStats {
  frames: TransportStats['frames'] & {
    /** resume streams: notifications delivered whose `id` came before with other content (another transition under a reused id) */
    idReused: number
    dropped: TransportStats['frames']['dropped'] & { duplicate: number; stale: number }
  }
  /** resume backfills: started, notifications recovered, truncated and failed runs, and history rows of other accounts skipped */
  backfills: { runs: number; recovered: number; truncated: number; failed: number; foreign: number }
  /** resume streams: notifications a verification found that the open socket never brought (docs/guide/continuity.md) */
  continuity: { silentLosses: number }
  /** timers pending inside the client (linger, backoff, heartbeat, connect timeout, backfill retry, sweep); 0 when idle */
  timers: number
  /** with `crossTab` in a browser: this tab's role, the tabs sharing, messages dropped as foreign or malformed */
  crossTab?: { role: 'leader' | 'follower'; tabs: number; dropped: number; fallbacks: number }
}

/** Fresh counters; the transport increments its part, resume streams theirs. */
export function createClientStats(): Omit<ClientStats, 'timers' | 'crossTab'> {
  return {
    sockets: 0,
    subscriptions: 0,
    frames: { received: 0, delivered: 0, idReused: 0, dropped: { control: 0, malformed: 0, oversize: 0, unrouted: 0, duplicate: 0, stale: 0 } },
    reconnects: 0,
    socketStatus: { connecting: 0, open: 0, reconnecting: 0 },
    backfills: { runs: 0, recovered: 0, truncated: 0, failed: 0, foreign: 0 },
    continuity: { silentLosses: 0 },
  }
}
