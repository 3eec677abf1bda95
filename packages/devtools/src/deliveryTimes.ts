import type { DiagnosticEvent, Notification, NotificationsStreamClient } from '@solver-notifications/core'

/** Delivery times kept per stream: enough for a p99 that moves with what happens now. */
const KEPT = 200

/** The clock the seam's `at` and `readAt` are read on (monotonic where the runtime has one). */
const now: () => number = typeof performance === 'object' && typeof performance.now === 'function' ? () => performance.now() : () => Date.now()

/** What the panel shows of one stream's deliveries. */
export interface StreamTiming {
  /** ms since its last notification was delivered */
  sinceMs: number
  /** the 99th percentile of its last deliveries (frame received, or history read, to delivered), ms */
  p99Ms: number
}

/**
 * Listens to a client's diagnostics seam while the panel is open: per stream (chain, solver, account),
 * when its last notification was delivered and how long its deliveries took (a backfill's hold
 * included), for the time-since and p99 the panel shows.
 *
 * @example
 * const times = watchDeliveries(client); times.of('1:beta:0xabc…'); times.stop()
 */
export function watchDeliveries(client: Pick<NotificationsStreamClient, 'diagnostics'>): { of(key: string): StreamTiming | undefined; stop(): void } {
  const streams = new Map<string, { last: number; durations: number[] }>()
  const held = new WeakSet<Notification>()
  const pending = new WeakMap<Notification, number>()
  const record = (n: Notification, durationMs: number) => {
    const key = `${n.chainId}:${n.solverId}:${n.account.toLowerCase()}`
    let stream = streams.get(key)
    if (!stream) streams.set(key, (stream = { last: 0, durations: [] }))
    stream.last = Date.now()
    stream.durations.push(Math.max(0, durationMs))
    if (stream.durations.length > KEPT) stream.durations.shift()
  }
  const stop = client.diagnostics.subscribe((e: DiagnosticEvent) => {
    if (e.type === 'held') held.add(e.notification)
    else if (e.type === 'frame') {
      if (held.has(e.notification)) pending.set(e.notification, e.at)
      else record(e.notification, now() - e.at)
    } else if (e.type === 'released') {
      const at = pending.get(e.notification)
      if (at === undefined) return
      pending.delete(e.notification)
      record(e.notification, now() - at)
    } else if (e.type === 'recovered') record(e.notification, now() - e.readAt)
  })
  return {
    of(key) {
      const stream = streams.get(key)
      if (!stream) return undefined
      const sorted = [...stream.durations].sort((a, b) => a - b)
      return { sinceMs: Date.now() - stream.last, p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]! }
    },
    stop,
  }
}
