/**
 * Counters the transport keeps: sockets, subscriptions, frames by fate, reconnect dials.
 * `received = delivered + dropped.*` always holds.
 */
export interface TransportStats {
  sockets: number
  subscriptions: number
  frames: {
    received: number
    delivered: number
    dropped: { control: number; malformed: number; oversize: number; unrouted: number }
  }
  /** reconnect dials started after a drop */
  reconnects: number
  /** the sockets by state now: dialling the first time, open, or waiting to dial again after a drop */
  socketStatus: { connecting: number; open: number; reconnecting: number }
}

export function createTransportStats(): TransportStats {
  return {
    sockets: 0,
    subscriptions: 0,
    frames: { received: 0, delivered: 0, dropped: { control: 0, malformed: 0, oversize: 0, unrouted: 0 } },
    reconnects: 0,
    socketStatus: { connecting: 0, open: 0, reconnecting: 0 },
  }
}
