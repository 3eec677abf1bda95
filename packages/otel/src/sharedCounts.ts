import type { Attributes, Meter, ObservableCounter, ObservableResult, ObservableUpDownCounter } from '@opentelemetry/api'

/** One attribute set's counts: the frozen attributes object and the counts so far (nothing allocated per frame). */
export interface Counted {
  readonly key: string
  /** the counter's attributes (with the conventions' operation and destination) */
  readonly attributes: Attributes
  /** the per-notification histograms' attributes: fewer, since the SDK hashes them on every record */
  readonly recorded?: Attributes
  consumed: number
  recovered: number
}

/** What one instrumented client contributes to the observable instruments of a meter. */
export interface Member {
  readonly sets: Iterable<Counted>
  reconnects(): number
  sockets(): Readonly<Record<'connecting' | 'open' | 'reconnecting', number>>
  /** its resume streams by continuity state (as their last change said) */
  streams(): Readonly<Record<ContinuityState, number>>
}

type ContinuityState = 'complete' | 'catching-up' | 'incomplete'
const STATES: readonly ContinuityState[] = ['complete', 'catching-up', 'incomplete']

/** The observable instruments a meter has, with the counts of every client instrumented on it. */
interface Shared {
  readonly members: Set<Member>
  /** counts of clients whose instrumentation stopped: a cumulative counter never goes back */
  readonly retired: Map<string, Counted>
  retiredReconnects: number
  readonly instruments: readonly [ObservableCounter, ObservableCounter, ObservableCounter, ObservableUpDownCounter, ObservableUpDownCounter]
  readonly callbacks: ReadonlyArray<(result: ObservableResult) => void>
}

const byMeter = new WeakMap<Meter, Shared>()

/**
 * Joins a client to the observable instruments of its meter. Two clients instrumented on one meter
 * provider (an app with two clients, a page and a worker) report the sum of both: an observable
 * instrument keeps one value per attribute set per collection, so each client observing its own would
 * overwrite the other's (docs/guide/observability.md, "Several clients"). Returns the function that
 * leaves: the client's counts so far stay in the sums, its callbacks go with the last member.
 */
export function joinShared(meter: Meter, names: { consumed: string; recovered: string; reconnects: string; sockets: string; streams: string }, base: Attributes, member: Member): () => void {
  let shared = byMeter.get(meter)
  if (!shared) {
    const consumed = meter.createObservableCounter(names.consumed, { unit: '{message}', description: 'Notifications handed to subscribers, live frames (once per frame) or recovered by a backfill or poll (once per stream).' })
    const recovered = meter.createObservableCounter(names.recovered, { unit: '{message}', description: 'Notifications a backfill or poll recovered.' })
    const reconnects = meter.createObservableCounter(names.reconnects, { unit: '{reconnect}', description: 'Sockets re-dialed after a drop.' })
    const sockets = meter.createObservableUpDownCounter(names.sockets, { unit: '{socket}', description: 'Sockets by status.' })
    const streams = meter.createObservableUpDownCounter(names.streams, { unit: '{stream}', description: 'Resume streams by continuity state (docs/guide/continuity.md).' })
    const s: Shared = {
      members: new Set(),
      retired: new Map(),
      retiredReconnects: 0,
      instruments: [consumed, recovered, reconnects, sockets, streams],
      callbacks: [
        (result) => sum(s, (set) => set.consumed > 0 && result.observe(set.consumed, set.attributes)),
        (result) => sum(s, (set) => set.recovered > 0 && result.observe(set.recovered, set.attributes)),
        (result) => {
          let n = s.retiredReconnects
          for (const m of s.members) n += m.reconnects()
          result.observe(n, base)
        },
        (result) => {
          const total = { connecting: 0, open: 0, reconnecting: 0 }
          for (const m of s.members) {
            const status = m.sockets()
            total.connecting += status.connecting
            total.open += status.open
            total.reconnecting += status.reconnecting
          }
          for (const status of ['connecting', 'open', 'reconnecting'] as const) result.observe(total[status], { ...base, 'solver_notifications.socket.status': status })
        },
        (result) => {
          const total: Record<ContinuityState, number> = { complete: 0, 'catching-up': 0, incomplete: 0 }
          for (const m of s.members) {
            const counts = m.streams()
            for (const state of STATES) total[state] += counts[state]
          }
          for (const state of STATES) result.observe(total[state], { ...base, 'solver_notifications.continuity': state })
        },
      ],
    }
    shared = s
    byMeter.set(meter, s)
  }
  const s = shared
  if (s.members.size === 0) s.instruments.forEach((instrument, i) => {
    instrument.addCallback(s.callbacks[i]!)
  })
  s.members.add(member)
  return () => {
    if (!s.members.delete(member)) return
    for (const set of member.sets) {
      const kept = s.retired.get(set.key)
      if (kept) {
        kept.consumed += set.consumed
        kept.recovered += set.recovered
      } else s.retired.set(set.key, { key: set.key, attributes: set.attributes, consumed: set.consumed, recovered: set.recovered })
    }
    s.retiredReconnects += member.reconnects()
    if (s.members.size === 0) s.instruments.forEach((instrument, i) => {
      instrument.removeCallback(s.callbacks[i]!)
    })
  }
}

/** Visits each attribute set once, with the counts of every member (and of the retired) added up. */
function sum(s: Shared, visit: (set: Counted) => void): void {
  if (s.members.size === 1 && s.retired.size === 0) {
    for (const m of s.members) for (const set of m.sets) visit(set)
    return
  }
  const total = new Map<string, Counted>()
  const add = (set: Counted) => {
    const t = total.get(set.key)
    if (t) {
      t.consumed += set.consumed
      t.recovered += set.recovered
    } else total.set(set.key, { key: set.key, attributes: set.attributes, consumed: set.consumed, recovered: set.recovered })
  }
  for (const set of s.retired.values()) add(set)
  for (const m of s.members) for (const set of m.sets) add(set)
  for (const set of total.values()) visit(set)
}
