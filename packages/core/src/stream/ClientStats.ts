/**
 * Counters of a client: sockets, subscriptions, frames by fate, reconnects (SPEC §4.1).
 * `received = delivered + dropped.*` always holds.
 *
 * @example
 * const { frames } = client.stats(); console.log(frames.dropped.malformed)
 */
export interface ClientStats {
  sockets: number
  subscriptions: number
  frames: {
    received: number
    delivered: number
    dropped: { control: number; malformed: number; oversize: number; unrouted: number }
  }
  /** reconnect dials started after a drop */
  reconnects: number
  /** timers pending inside the client (linger, backoff, heartbeat, connect timeout); 0 when idle */
  timers: number
}

export function createStats(): ClientStats {
  return {
    sockets: 0,
    subscriptions: 0,
    frames: { received: 0, delivered: 0, dropped: { control: 0, malformed: 0, oversize: 0, unrouted: 0 } },
    reconnects: 0,
    timers: 0,
  }
}
