import type { RelayClock, RelayTimer } from '../RelayClock.js'
import { parseStoredKey } from '../deployment.js'
import type { BucketEntry } from '../readBucket.js'
import type { RelayLogger } from '../relayLogger.js'
import type { AccountTable } from './AccountTable.js'
import type { PartitionSlots } from './PartitionSlots.js'
import { runBounded } from './runBounded.js'

/** What reading one partition's accounts through its own consumer costs (nats-server 2.9, measured), against one entry of a whole-bucket scan. */
const PARTITION_READ_MS = 15
const SCAN_ENTRY_MS = 0.01
/** Single-partition reads at once in a batch (a consumer each on the server). */
export const PARTITION_READS = 16

/** How one partition's read ended, as the coordinator applies it. */
export interface ReadOutcome {
  partition: number
  /** the take the read was made under: a partition handed over and taken again is reconciled by its new read */
  epoch: number
  ok: boolean
  /** keys the bucket has, from the read or the watch */
  seen: ReadonlySet<string>
  /** entries of the partition the read delivered */
  entries: number
  /** whether this was the second read of a partition whose first found none of its record's accounts */
  again: boolean
}

/** One read of a partition's keys under way. */
interface PartitionRead {
  epoch: number
  /** keys the watch saw deleted while the read ran (its answer may be older) */
  deleted: Set<string>
  seen: Set<string>
  entries: number
  failed: boolean
}

/** What the reads need of the relay. */
interface ReadDeps {
  readAccounts: (pattern: string, onEntry: (entry: BucketEntry) => void) => Promise<unknown>
  totalAccounts: () => number
  leaseTtlMs: number
  logger: RelayLogger
  clock: RelayClock
}

/**
 * Reads the accounts of partitions just taken; changes after that come through the bucket's watch. Partitions
 * taken together are read together — through one consumer per partition (`p<n>.>`, PARTITION_READS at a time)
 * when they are few, or one scan of the whole bucket when that is cheaper (a relay's first round, or a large
 * takeover): on nats-server 2.9 a consumer costs ~15 ms to make and lingers a while, a scanned entry ~10 µs.
 * Every entry read and every end of a read is dispatched as an event; this class writes only its reads' own state.
 *
 * @example
 * reads.start([{ partition: 3, epoch: 7 }], 12)
 */
export class PartitionReads {
  /** reads under way, by partition (a partition handed over and taken again may have two) */
  readonly #loading = new Map<number, Set<PartitionRead>>()
  /** partitions read again because their read found none of their record's accounts (one timer each) */
  readonly #rereads = new Map<number, RelayTimer>()
  readonly #rereadMs: number
  #batches = 0
  #closed = false

  constructor(
    private readonly deps: ReadDeps,
    private readonly slots: PartitionSlots,
    private readonly table: AccountTable,
    private readonly dispatch: (event: { type: 'entry'; entry: BucketEntry } | ({ type: 'readDone' } & ReadOutcome)) => void,
    /** a batch ended: the accounts it read open together */
    private readonly batchEnded: () => void,
  ) {
    this.#rereadMs = Math.max(200, Math.floor(deps.leaseTtlMs / 3))
  }

  /** Whether a batch of partitions is being read (their accounts open together when it ends). */
  get reading(): boolean {
    return this.#batches > 0
  }

  close(): void {
    this.#closed = true
    for (const reread of this.#rereads.values()) this.deps.clock.clear(reread)
  }

  /** Reads a batch beside the liveness timer; a batch never waits for an earlier one (in a takeover, leases run out one after another). */
  start(batch: ReadonlyArray<{ partition: number; epoch: number }>, claimMs = 0): void {
    this.#batches++
    const started = this.deps.clock.now()
    void this.#read(batch, false)
      .then(({ read, scan }) => this.deps.logger.info({ partitions: batch.length, entries: read, scan, claimMs, readMs: this.deps.clock.now() - started }, 'partitions read'))
      .finally(() => {
        this.#batches--
        this.batchEnded()
      })
  }

  /** An entry of a held partition, from the watch or a read: every read of the partition under way hears of it. */
  saw(e: BucketEntry, where: { key: string; partition: number }): void {
    for (const r of this.#loading.get(where.partition) ?? []) (e.operation === 'PUT' ? r.seen : r.deleted).add(where.key)
  }

  /**
   * The keys of a partition's record the bucket no longer has, once its read ended (removed while nobody owned
   * the partition). A read that found nothing of a partition whose record holds accounts keeps them and reads it
   * again a little later (a busy server has answered a read with no entries); when that read finds none too,
   * they were all removed, and they go.
   */
  missing(outcome: ReadOutcome): string[] {
    const { partition, seen, entries, again } = outcome
    const missing = [...this.table.keysOf(partition)].filter((key) => !seen.has(key))
    if (missing.length === 0) return []
    if (entries > 0 || again) {
      if (entries === 0) this.deps.logger.warn({ partition, accounts: missing.length }, `partition ${partition}: read again, the bucket still has none of the ${missing.length} accounts its checkpoints hold; they were removed, let go`)
      return missing
    }
    this.deps.logger.warn({ partition, accounts: missing.length }, `partition ${partition}: the bucket's read found none of the ${missing.length} accounts its checkpoints hold; kept them, read again in ${this.#rereadMs} ms`)
    this.deps.clock.clear(this.#rereads.get(partition))
    this.#rereads.set(
      partition,
      this.deps.clock.set(() => {
        this.#rereads.delete(partition)
        const slot = this.slots.get(partition)
        if (!this.#closed && slot && this.slots.isMine(partition)) void this.#read([{ partition, epoch: slot.epoch }], true)
      }, this.#rereadMs),
    )
    return []
  }

  async #read(batch: ReadonlyArray<{ partition: number; epoch: number }>, again: boolean): Promise<{ read: number; scan: boolean }> {
    let read = 0
    const reads = new Map<number, PartitionRead>()
    for (const { partition, epoch } of batch) {
      const r: PartitionRead = { epoch, deleted: new Set(), seen: new Set(), entries: 0, failed: false }
      reads.set(partition, r)
      let under = this.#loading.get(partition)
      if (!under) this.#loading.set(partition, (under = new Set()))
      under.add(r)
    }
    const take = (entry: BucketEntry) => {
      const parsed = parseStoredKey(entry.key)
      read++
      const r = parsed && reads.get(parsed.partition)
      if (!r) return
      r.entries++
      // Deleted while this read was under way: the watch's delete is newer than this answer.
      if (entry.operation === 'PUT' && !r.deleted.has(parsed.key) && this.slots.get(parsed.partition)?.epoch === r.epoch) this.dispatch({ type: 'entry', entry })
    }
    const failed = (partition: number, error: unknown) => {
      const r = reads.get(partition)
      if (r) r.failed = true
      this.deps.logger.warn({ partition }, `partition ${partition}: accounts not read (${(error as Error)?.message ?? String(error)}); given back, taken again in a later round`)
    }
    const partitions = [...reads.keys()]
    const scan = partitions.length * PARTITION_READ_MS > this.deps.totalAccounts() * SCAN_ENTRY_MS
    if (scan) {
      try {
        await this.deps.readAccounts('>', take)
      } catch (error) {
        for (const partition of partitions) failed(partition, error)
      }
    } else {
      await runBounded(
        partitions,
        async (partition) => {
          try {
            await this.deps.readAccounts(`p${partition}.>`, take)
          } catch (error) {
            failed(partition, error)
          }
        },
        PARTITION_READS,
      )
    }
    for (const [partition, r] of reads) {
      const under = this.#loading.get(partition)
      under?.delete(r)
      if (under?.size === 0) this.#loading.delete(partition)
      this.dispatch({ type: 'readDone', partition, epoch: r.epoch, ok: !r.failed, seen: r.seen, entries: r.entries, again })
    }
    return { read, scan }
  }
}
