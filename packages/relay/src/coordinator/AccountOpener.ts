import { isServiceError } from '@solver-notifications/core'
import { type AccountContext, AccountRelay } from '../AccountRelay.js'
import type { PartitionCheckpoint } from '../PartitionCheckpoint.js'
import type { RelayClock } from '../RelayClock.js'
import { WorkerPool } from '../WorkerPool.js'
import { CONCURRENCY } from './runBounded.js'
import type { WantedAccount } from './AccountTable.js'


/** An account of a batch being opened, as the batch's end event carries it. */
export interface OpenedAccount {
  key: string
  relay: AccountRelay
  partition: number
}

/**
 * What happens to the open accounts, as events of the coordinator's queue: the opener's runs decide what to
 * open and close between awaits, and every change of which accounts are open is one of these, applied by the
 * coordinator's dispatch (docs/architecture.md, "Coordinator, one writer").
 */
export type AccountEvent =
  /** open these accounts now, in one tick (a rasa hub sends one subscribe frame for them) */
  | { type: 'openAccounts'; keys: readonly string[] }
  /** a batch's first backfills are done: the accounts whose partition went away meanwhile are let go */
  | { type: 'accountsBegun'; batch: readonly OpenedAccount[] }
  /** let these accounts go: out of their hubs now, stopped after what is in flight (`graceMs` 0: at once) */
  | { type: 'closeAccounts'; keys: Iterable<string>; graceMs?: number | undefined }
  /** an account stopped (its position given to its record): it may be opened again */
  | { type: 'accountClosed'; key: string; relay: AccountRelay }
  /** bring the open accounts in line with the held partitions */
  | { type: 'reconcile' }

/** What the opener reads of the coordinator: which accounts are wanted, and which partitions are this relay's. */
export interface OpenerView {
  wanted: ReadonlyMap<string, WantedAccount>
  isMine(partition: number): boolean
  recordOf(partition: number): PartitionCheckpoint | undefined
  /** every account of the partitions that are this relay's */
  ownedAccounts(): string[]
  /** nothing new opens (draining or closed) */
  stopped(): boolean
  /** the coordinator's clock (the short wait that gathers accounts arriving one by one into a batch) */
  clock: RelayClock
  /** the account as this relay kept it while its partition was fenced, resuming on `record`, if it was */
  resume?(key: string, partition: number, record: PartitionCheckpoint): AccountRelay | undefined
  /** a batch of accounts was opened (for the round's log line) */
  opened(count: number): void
  /** a reconcile run ended */
  settled(): void
  warn(message: string): void
  error(key: string, message: string): void
  /** queues an event of the open accounts on the coordinator (its only writer); resolves when what it started is done */
  dispatch(event: AccountEvent): Promise<void>
}

/**
 * The accounts this relay watches (opening, or open): brings them in line with the partitions it holds, one run
 * at a time. A run only decides; what changes the open accounts is an {@link AccountEvent} the coordinator
 * applies, so no write of them happens after an await. Accounts open in batches whose streams all subscribe in
 * one tick (a rasa hub sends one subscribe frame for the batch), and close out of their hubs in one tick too.
 *
 * @example
 * const opener = new AccountOpener(accountContext, view)
 * await view.dispatch({ type: 'reconcile' })
 */
export class AccountOpener {
  readonly open = new Map<string, AccountRelay>()
  /** accounts stopping (publishes in flight, then their position): none opens again before it is done */
  readonly #closing = new Map<string, AccountRelay>()
  /** Handing accounts over: bounded, and never stopped (a drain is made of them). */
  readonly #handovers = new WorkerPool(CONCURRENCY, () => false)
  #running: Promise<void> | undefined
  #again = false

  constructor(
    private readonly context: AccountContext,
    private readonly view: OpenerView,
  ) {}

  /** Publishes in flight over every account, stopping ones included. */
  pending(): number {
    let n = 0
    for (const relay of this.open.values()) n += relay.inFlight
    for (const relay of this.#closing.values()) n += relay.inFlight
    return n
  }

  /** The run under way, if any (a drain waits for it). */
  get running(): Promise<void> | undefined {
    return this.#running
  }

  /** Whether the account is open or still stopping. */
  has(key: string): boolean {
    return this.open.has(key) || this.#closing.has(key)
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
      if (stale.length > 0) await this.view.dispatch({ type: 'closeAccounts', keys: stale })
      const missing = this.view.ownedAccounts().filter((key) => !this.has(key))
      for (let i = 0; i < missing.length && !this.view.stopped(); i += CONCURRENCY) await this.view.dispatch({ type: 'openAccounts', keys: missing.slice(i, i + CONCURRENCY) })
      // Accounts arriving one by one (keys being added): wait a moment so they open as one batch (one subscribe frame per hub).
      if (this.#again && !this.view.stopped()) await new Promise<void>((resolve) => this.view.clock.set(resolve, 25))
    } while (this.#again && !this.view.stopped())
  }

  /**
   * Applies an event of the open accounts (the coordinator's dispatch only); returns what it started, which
   * the event's caller waits for.
   */
  apply(event: AccountEvent): Promise<unknown>[] {
    switch (event.type) {
      case 'openAccounts':
        return this.#openNow(event.keys)
      case 'accountsBegun':
        // Partitions that went away while the first backfills ran: their accounts go again.
        return this.#closeNow(event.batch.filter((b) => this.open.get(b.key) === b.relay && (!this.view.isMine(b.partition) || !this.view.wanted.has(b.key))).map((b) => b.key))
      case 'closeAccounts':
        return this.#closeNow(event.keys, event.graceMs)
      case 'accountClosed': {
        if (this.#closing.get(event.key) === event.relay) this.#closing.delete(event.key)
        // Wanted here again while it stopped (its partition taken back): it opens now that it is done.
        const entry = this.view.wanted.get(event.key)
        if (entry && this.view.isMine(entry.partition) && !this.has(event.key) && !this.view.stopped()) this.reconcileSoon()
        return []
      }
      case 'reconcile':
        this.reconcileSoon()
        return []
    }
  }

  /**
   * Opens accounts of held partitions from their checkpoints, all subscribed in this tick; the event's caller
   * waits for their first backfills (history requests stay bounded), then for the batch's end.
   */
  #openNow(keys: readonly string[]): Promise<unknown>[] {
    const batch: OpenedAccount[] = []
    for (const key of keys) {
      const entry = this.view.wanted.get(key)
      const record = entry && this.view.recordOf(entry.partition)
      if (!entry || !record || this.has(key) || !this.view.isMine(entry.partition) || this.view.stopped()) continue
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
    if (batch.length === 0) return []
    const started = batch.map((b) => b.relay.begin())
    this.view.opened(batch.length)
    return [Promise.all(started).then(() => this.view.dispatch({ type: 'accountsBegun', batch }))]
  }

  /**
   * Stops accounts: out of their hubs and out of the open ones all in this tick (rasa resends a hub's list
   * once for all of them, not once per account), then each waits for its publishes in flight, bounded in
   * number; `graceMs` 0 stops them at once (the lease may be gone). Each one done is an `accountClosed`.
   */
  #closeNow(keys: Iterable<string>, graceMs?: number): Promise<unknown>[] {
    const closing = new Map<string, AccountRelay>()
    for (const key of keys) {
      const relay = this.open.get(key)
      if (!relay) continue
      relay.detach()
      this.open.delete(key)
      this.#closing.set(key, relay)
      closing.set(key, relay)
    }
    if (closing.size === 0) return []
    return [
      this.#handovers.run([...closing.keys()], async (key) => {
        const relay = closing.get(key)!
        // Removed from the bucket by the time it stops: its position goes with it.
        await relay.stop(graceMs, () => !this.view.wanted.has(key))
        await this.view.dispatch({ type: 'accountClosed', key, relay })
      }),
    ]
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
}
