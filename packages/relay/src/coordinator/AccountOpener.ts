import { isServiceError } from '@solver-notifications/core'
import { type AccountContext, AccountRelay } from '../AccountRelay.js'
import type { PartitionCheckpoint } from '../PartitionCheckpoint.js'
import { WorkerPool } from '../WorkerPool.js'
import { CONCURRENCY } from './runBounded.js'
import type { WantedAccount } from './AccountTable.js'


/** What the opener reads of the coordinator: which accounts are wanted, and which partitions are this relay's. */
export interface OpenerView {
  wanted: ReadonlyMap<string, WantedAccount>
  isMine(partition: number): boolean
  recordOf(partition: number): PartitionCheckpoint | undefined
  /** every account of the partitions that are this relay's */
  ownedAccounts(): string[]
  /** nothing new opens (draining or closed) */
  stopped(): boolean
  /** the account as this relay kept it while its partition was fenced, resuming on `record`, if it was */
  resume?(key: string, partition: number, record: PartitionCheckpoint): AccountRelay | undefined
  /** a batch of accounts was opened (for the round's log line) */
  opened(count: number): void
  /** a reconcile run ended */
  settled(): void
  warn(message: string): void
  error(key: string, message: string): void
}

/**
 * The accounts this relay watches (opening, or open): brings them in line with the partitions it holds, one run
 * at a time. Accounts open in batches whose streams all subscribe in one tick (a rasa hub sends one subscribe
 * frame for the batch), and close out of their hubs in one tick too.
 *
 * @example
 * const opener = new AccountOpener(accountContext, view)
 * opener.reconcileSoon()
 */
export class AccountOpener {
  readonly open = new Map<string, AccountRelay>()
  /** Handing accounts over: bounded, and never stopped (a drain is made of them). */
  readonly #handovers = new WorkerPool(CONCURRENCY, () => false)
  #running: Promise<void> | undefined
  #again = false

  constructor(
    private readonly context: AccountContext,
    private readonly view: OpenerView,
  ) {}

  /** Publishes in flight over every open account. */
  pending(): number {
    let n = 0
    for (const relay of this.open.values()) n += relay.inFlight
    return n
  }

  /** The run under way, if any (a drain waits for it). */
  get running(): Promise<void> | undefined {
    return this.#running
  }

  /** Takes a partition's accounts out of their hubs now (partitions released together shrink each hub once). */
  detach(keys: Iterable<string>): void {
    for (const key of keys) this.open.get(key)?.detach()
  }

  /** Brings the open accounts in line with the held partitions; one run at a time, run again when something changed meanwhile. */
  reconcileSoon(): void {
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = this.#reconcile()
      .catch((error: unknown) => this.view.warn(`accounts not brought in line: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        this.#running = undefined
        this.view.settled()
      })
  }

  async #reconcile(): Promise<void> {
    do {
      this.#again = false
      const stale = [...this.open.keys()].filter((key) => {
        const entry = this.view.wanted.get(key)
        return !entry || !this.view.isMine(entry.partition)
      })
      await this.closeAll(stale)
      const missing = this.view.ownedAccounts().filter((key) => !this.open.has(key))
      for (let i = 0; i < missing.length && !this.view.stopped(); i += CONCURRENCY) await this.#openBatch(missing.slice(i, i + CONCURRENCY))
      // Accounts arriving one by one (keys being added): wait a moment so they open as one batch (one subscribe frame per hub).
      if (this.#again && !this.view.stopped()) await new Promise((resolve) => setTimeout(resolve, 25))
    } while (this.#again && !this.view.stopped())
  }

  /**
   * Opens accounts of held partitions from their checkpoints: their checkpoints read side by side, then all
   * subscribed in one tick, then their first backfills awaited, so history requests stay bounded.
   */
  async #openBatch(keys: string[]): Promise<void> {
    const batch: Array<{ key: string; relay: AccountRelay; partition: number }> = []
    // No await until every stream of the batch subscribed: one tick, so a hub sends one frame for them.
    for (const key of keys) {
      const entry = this.view.wanted.get(key)
      const record = entry && this.view.recordOf(entry.partition)
      if (!entry || !record || this.open.has(key) || !this.view.isMine(entry.partition) || this.view.stopped()) continue
      let relay: AccountRelay
      try {
        relay = this.view.resume?.(key, entry.partition, record) ?? AccountRelay.prepare(entry, this.context, record, entry.since)
      } catch (error) {
        this.context.metrics.error('WATCH')
        this.view.error(key, `${key}: cannot watch: ${isServiceError(error) ? `${error.code}: ${error.message}` : String(error)}`)
        continue
      }
      this.open.set(key, relay)
      batch.push({ key, relay, partition: entry.partition })
    }
    const started = batch.map((b) => b.relay.begin())
    this.view.opened(batch.length)
    await Promise.all(started)
    // Partitions that went away while the first backfills ran: let their accounts go again.
    for (const b of batch) if (this.open.get(b.key) === b.relay && (!this.view.isMine(b.partition) || !this.view.wanted.has(b.key))) await this.#close(b.key)
  }

  /**
   * Stops accounts: out of their hubs all in this tick (rasa resends a hub's list once for all of them, not
   * once per account), then each waits for its publishes in flight; `graceMs` 0 stops them at once (the
   * lease may be gone).
   */
  closeAll(keys: Iterable<string>, graceMs?: number): Promise<void> {
    const list = [...keys]
    this.detach(list)
    return this.#handovers.run(list, (key) => this.#close(key, graceMs))
  }

  /** Takes accounts out of the open ones without stopping them (their partition was fenced: they are kept, see `FencedAccounts`). */
  takeOut(keys: Iterable<string>): AccountRelay[] {
    const out: AccountRelay[] = []
    for (const key of keys) {
      const relay = this.open.get(key)
      if (!relay) continue
      this.open.delete(key)
      out.push(relay)
    }
    return out
  }

  /** Stops an account (checkpoint written after what is in flight); removed from the bucket, its position goes with it. */
  async #close(key: string, graceMs?: number): Promise<void> {
    const relay = this.open.get(key)
    if (!relay) return
    this.open.delete(key)
    await relay.stop(graceMs, !this.view.wanted.has(key))
  }
}
