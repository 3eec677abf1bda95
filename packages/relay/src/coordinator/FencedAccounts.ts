import { type RelayClock, type RelayTimer, systemClock } from '../RelayClock.js'
import type { AccountRelay } from '../AccountRelay.js'
import type { PartitionCheckpoint } from '../PartitionCheckpoint.js'
import type { RelayLogger } from '../relayLogger.js'
import type { KeptDrop, RelayMetrics } from '../RelayMetrics.js'
import type { RepeatedLines } from '../RepeatedLines.js'

/** How long a fenced partition's accounts keep their streams and what they bring (the relay README, "NATS away longer than a lease"). */
export const KEEP_MS = 60_000
/** How many notifications fenced accounts keep at most, all partitions together: past it, the partition keeping most lets go. */
export const MAX_KEPT = 200_000

interface Parked {
  relays: Map<string, AccountRelay>
  /** the lease's last revision this relay knew it wrote: taken again over its own entry from there on, nobody owned the partition meanwhile */
  revision: number
  timer: RelayTimer
  /** taken again from that revision: its accounts resume as the opener asks for them */
  resumable: boolean
}

/**
 * The accounts of partitions this relay fenced itself out of (a renewal not confirmed in time: NATS
 * away or too slow). They publish nothing (another relay may own them once the lease runs out), but
 * keep their streams and what those bring, in order, for at most {@link KEEP_MS} and within
 * {@link MAX_KEPT} notifications. When the relay takes the same partition back and the lease shows
 * nobody else wrote it meanwhile, each account resumes where it was and publishes what it kept: on
 * rasa, whose history keeps only each quote's latest state, that is every transition it saw. Otherwise
 * what was kept is dropped, counted by reason (`solver_relay_kept_dropped_total`), and the partition's
 * owner resumes from the checkpoint record as any takeover does.
 *
 * @example
 * fenced.park(partition, revision, relays) // on a fence
 * fenced.retaken(partition, lease)         // when the partition is taken again
 * fenced.resume(key, partition, record)    // the opener, for each of its accounts
 */
export class FencedAccounts {
  readonly #parked = new Map<number, Parked>()
  #kept = 0

  constructor(
    private readonly deps: { metrics: RelayMetrics; logger: RelayLogger; lines?: RepeatedLines | undefined; keepMs?: number; maxKept?: number; clock?: RelayClock },
  ) {}

  /** Notifications kept now, all partitions together. */
  get kept(): number {
    return this.#kept
  }

  /** Partitions whose accounts are kept. */
  get size(): number {
    return this.#parked.size
  }

  /** Fenced accounts kept `n` more (or fewer): past the bound, the partition keeping most lets go. */
  count(n: number): void {
    this.#kept += n
    this.deps.metrics.kept = this.#kept
    if (this.#kept <= (this.deps.maxKept ?? MAX_KEPT)) return
    let most: number | undefined
    let size = -1
    for (const [partition, p] of this.#parked) {
      const held = keptOf(p)
      if (held > size) [most, size] = [partition, held]
    }
    if (most !== undefined) this.drop(most, 'memory')
  }

  /** A fenced partition: its accounts stop publishing and keep what they receive. */
  park(partition: number, revision: number, relays: AccountRelay[]): void {
    // Fenced again before every account resumed: those still kept stay with the others.
    const before = this.#parked.get(partition)
    this.#forget(partition)
    const all = new Map(before?.relays)
    for (const relay of relays) all.set(relay.watched.key, relay)
    if (all.size === 0) return
    for (const relay of relays) relay.fence()
    const timer = (this.deps.clock ?? systemClock).set(() => this.drop(partition, 'too-long'), this.deps.keepMs ?? KEEP_MS)
    this.#parked.set(partition, { relays: all, revision, timer, resumable: false })
  }

  /**
   * The partition was taken again, by revision, over `after`: when that entry is this relay's own (no
   * `from`), written at or after the revision it held when fenced, nobody else wrote the lease since
   * (only its owner writes a lease, and a relay gives one back by deleting it), so its accounts resume.
   * A renewal NATS stored but never acknowledged makes `after` newer than what the relay knew: still its
   * own. Taken over anyone else's entry, or created afresh (given back, or the bucket reset), they let go.
   */
  retaken(partition: number, lease: { from: string | undefined; after: number | undefined }): void {
    const p = this.#parked.get(partition)
    if (!p) return
    if (lease.from === undefined && lease.after !== undefined && lease.after >= p.revision) p.resumable = true
    else this.drop(partition, 'another-owner')
  }

  /** The kept account `key`, unfenced on its partition's new record, when its partition resumes. */
  resume(key: string, partition: number, record: PartitionCheckpoint): AccountRelay | undefined {
    const p = this.#parked.get(partition)
    const relay = p?.resumable ? p.relays.get(key) : undefined
    if (!p || !relay) return undefined
    p.relays.delete(key)
    if (p.relays.size === 0) this.#forget(partition)
    relay.unfence(record)
    return relay
  }

  /** Lets go of a partition's kept accounts: what they kept is counted as dropped, with why. */
  drop(partition: number, why: KeptDrop): void {
    const p = this.#parked.get(partition)
    if (!p) return
    this.#forget(partition)
    const dropped = keptOf(p)
    if (dropped > 0) {
      this.deps.metrics.keptDropped(why, dropped)
      const fields = { partition, dropped, why }
      if (this.deps.lines) this.deps.lines.add('kept notifications dropped', why, fields)
      else this.deps.logger.warn(fields, `partition ${partition}: ${dropped} notifications kept while fenced dropped (${why}); its owner resumes from the checkpoint`)
    }
    for (const relay of p.relays.values()) void relay.stop(0)
  }

  /** The relay closes: every kept account lets go. */
  close(): void {
    for (const partition of [...this.#parked.keys()]) this.drop(partition, 'closed')
  }

  #forget(partition: number): void {
    const p = this.#parked.get(partition)
    if (!p) return
    ;(this.deps.clock ?? systemClock).clear(p.timer)
    this.#parked.delete(partition)
  }
}

function keptOf(p: Parked): number {
  let n = 0
  for (const relay of p.relays.values()) n += relay.keptCount
  return n
}
