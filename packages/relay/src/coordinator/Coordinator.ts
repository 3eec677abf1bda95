import type { RepeatedLines } from '../RepeatedLines.js'
import { type RelayClock, type RelayTimer, systemClock } from '../RelayClock.js'
import type { KV, KvEntry } from '@nats-io/kv'
import type { AccountContext } from '../AccountRelay.js'
import type { LeaseTable } from '../LeaseTable.js'
import type { Membership } from '../Membership.js'
import { PartitionCheckpoint, type RecordHooks } from '../PartitionCheckpoint.js'
import type { BucketEntry } from '../readBucket.js'
import type { RelayLogger } from '../relayLogger.js'
import type { RelayMetrics } from '../RelayMetrics.js'
import { type AccountEvent, AccountOpener } from './AccountOpener.js'
import { AccountTable } from './AccountTable.js'
import { FencedAccounts } from './FencedAccounts.js'
import { PartitionReads, type ReadOutcome } from './PartitionReads.js'
import { FENCED, PartitionSlots, type SlotEffect, type SlotEvent } from './PartitionSlots.js'
import { CONCURRENCY, runBounded } from './runBounded.js'

/**
 * Everything that happens to a relay's partitions and accounts, in the order it happened: the liveness round's
 * steps and the results of its requests (as {@link SlotEvent}s), an entry of the accounts bucket (from its watch or
 * a partition's read), an entry of the leases bucket, and the end of a partition's read.
 */
export type RelayEvent =
  | SlotEvent
  | AccountEvent
  /** a take's answer: the lease, or undefined when another relay was first */
  | { type: 'leaseTaken'; partition: number; epoch: number; sentAt: number; lease: TakenLease | undefined }
  /** a claim's answer: the record claimed, or why not */
  | { type: 'recordClaimed'; partition: number; epoch: number; record?: PartitionCheckpoint | undefined; error?: unknown }
  /** a lost partition's accounts are stopped: unless it was taken again meanwhile, it is forgotten */
  | { type: 'forget'; partition: number }
  | { type: 'entry'; entry: BucketEntry }
  | { type: 'leaseEntry'; entry: KvEntry }
  /** a bucket was reset (NATS lost it, or it was recreated): what this relay held of it is gone */
  | { type: 'bucketReset'; bucket: 'accounts' | 'leases' | 'checkpoints' }
  | ({ type: 'readDone' } & ReadOutcome)

type TakenLease = NonNullable<Awaited<ReturnType<LeaseTable['take']>>>

/** What the coordinator is given: the relay's identity, stores and shared per-account context. */
export interface CoordinatorDeps {
  id: string
  partitions: number
  leaseTtlMs: number
  fenceMarginMs: number
  leases: LeaseTable
  membership: Membership
  checkpoints: KV
  /** reads every current entry of the accounts bucket under a pattern */
  readAccounts: (pattern: string, onEntry: (entry: BucketEntry) => void) => Promise<unknown>
  accountContext: AccountContext
  metrics: RelayMetrics
  logger: RelayLogger
  /** accounts in the bucket (all partitions), as the last round counted them */
  totalAccounts: () => number
  /** another relay left or gave a lease back: the plan should look at once */
  livenessSoon: () => void
  /** what an outage makes by the hundred (lost partitions, unwritten checkpoints) is one line a second, counted by cause */
  lines?: RepeatedLines | undefined
  /** NATS denies this relay an operation it needs (its user's permissions): the relay withdraws and says so */
  denied?: ((operation: string, message: string) => void) | undefined
  /** the time of every decision and every timer (default: the system's) */
  clock?: RelayClock | undefined
}

/** What rounds did, logged as counts (1,000 partitions are one line, not 1,000). */
interface Moves {
  taken: number
  handedOver: number
  lost: number
  opened: number
  from: Map<string, number>
}
/** How NATS says a user may not do something (`Permissions Violation for Publish to …`). */
const PERMISSION = /permission/i

const noMoves = (): Moves => ({ taken: 0, handedOver: 0, lost: 0, opened: 0, from: new Map() })

/**
 * A relay's partitions and accounts with one writer: every event goes through {@link Coordinator.dispatch}, which
 * queues it and applies events one at a time, in order — the slots' state machine ({@link PartitionSlots}) first,
 * then the effects it asked for. Requests those effects send come back as events, never as writes of their own.
 *
 * @example
 * const coordinator = new Coordinator(deps)
 * await coordinator.dispatch({ type: 'take', partition: 3 })
 */
export class Coordinator {
  readonly slots: PartitionSlots
  readonly table: AccountTable
  readonly opener: AccountOpener
  readonly #reads: PartitionReads
  /** the accounts of partitions this relay fenced itself out of, kept until it takes them back */
  readonly #fenced: FencedAccounts
  /** each held partition's checkpoint record, from when its claim is adopted */
  readonly #records = new Map<number, PartitionCheckpoint>()
  /** records claimed whose verdict (adopt or discard) is being applied */
  readonly #claimed = new Map<string, PartitionCheckpoint>()
  readonly #queue: Array<{ event: RelayEvent; done: (waits: Promise<unknown>[]) => void }> = []
  #applying = false
  #closed = false
  /** drains waiting for the last slot to go */
  #emptied: Array<() => void> = []
  #moves = noMoves()
  /** the timed fence: armed at the slots' next `confirmedUntil` (see {@link Coordinator.#armFence}) */
  #fenceTimer: RelayTimer | undefined
  #fenceAt: number | undefined
  /** a slot event was applied since the fence was last armed */
  #slotsChanged = false
  /** partitions whose last renewal got no answer, sent again when {@link Coordinator.#renewAgainTimer} fires */
  readonly #renewAgain = new Set<number>()
  #renewAgainTimer: RelayTimer | undefined
  readonly #renewAgainMs: number

  readonly clock: RelayClock

  constructor(private readonly deps: CoordinatorDeps) {
    this.clock = deps.clock ?? systemClock
    this.#renewAgainMs = Math.max(100, Math.min(1_000, Math.floor(deps.leaseTtlMs / 15)))
    this.slots = new PartitionSlots({ leaseTtlMs: deps.leaseTtlMs, fenceMarginMs: deps.fenceMarginMs })
    this.#fenced = new FencedAccounts({ metrics: deps.metrics, logger: deps.logger, lines: deps.lines, clock: this.clock })
    deps.accountContext.kept = (n) => this.#fenced.count(n)
    this.table = new AccountTable(deps.partitions, deps.metrics, deps.logger)
    this.#reads = new PartitionReads(
      { ...deps, clock: this.clock },
      this.slots,
      this.table,
      (event) => void this.dispatch(event),
      () => void this.dispatch({ type: 'reconcile' }),
    )
    this.opener = new AccountOpener(deps.accountContext, {
      wanted: this.table.wanted,
      isMine: (p) => this.slots.isMine(p),
      recordOf: (p) => this.#records.get(p),
      ownedAccounts: () => this.ownedAccounts(),
      stopped: () => this.#closed || this.slots.draining,
      clock: this.clock,
      resume: (key, partition, record) => this.#fenced.resume(key, partition, record),
      opened: (count) => {
        this.#moves.opened += count
      },
      settled: () => this.reportMoves(),
      warn: (message) => deps.logger.warn({}, message),
      error: (account, message) => deps.logger.error({ account }, message),
      dispatch: (event) => this.dispatch(event),
    })
  }

  /**
   * Queues an event and, unless one is being applied, applies the queue in order. Resolves when the requests
   * the event's own effects sent, and that its caller waits for (takes, renewals, stopping a lost partition),
   * have been answered.
   */
  dispatch(event: RelayEvent): Promise<void> {
    return new Promise<Promise<unknown>[]>((done) => {
      this.#queue.push({ event, done })
      if (this.#applying) return
      this.#applying = true
      try {
        for (let item = this.#queue.shift(); item; item = this.#queue.shift()) {
          try {
            item.done(this.#apply(item.event))
          } catch (error) {
            // One event's failure must not strand the ones queued behind it.
            this.deps.logger.error({ event: item.event.type }, `relay event not applied: ${(error as Error)?.message ?? String(error)}`)
            item.done([])
          }
        }
        if (this.slots.size === 0 && this.#emptied.length > 0) for (const resolve of this.#emptied.splice(0)) resolve()
        if (this.#slotsChanged) this.#armFence()
      } finally {
        this.#applying = false
      }
    }).then((waits) => Promise.all(waits).then(() => undefined))
  }

  /**
   * Hands every partition over (accounts stopped, checkpoints written, leases given back) and takes none from
   * now on; resolves when no slot is left (a take in flight is given back when it lands).
   */
  async drain(): Promise<void> {
    // What fenced accounts kept cannot be published by a relay that leaves: counted as dropped.
    this.#fenced.close()
    const emptied = new Promise<void>((resolve) => this.#emptied.push(resolve))
    await this.dispatch({ type: 'drain' })
    if (this.slots.size > 0) await emptied
  }

  /** Nothing new is opened or read from now on (after a drain). */
  close(): void {
    this.#closed = true
    this.#fenced.close()
    this.#reads.close()
    this.clock.clear(this.#fenceTimer)
    this.#fenceTimer = undefined
    this.clock.clear(this.#renewAgainTimer)
    this.#renewAgainTimer = undefined
  }

  /**
   * Fencing is local and timed: a partition whose lease was not renewed by its expiry less the margin is
   * stopped at that moment by this relay's own timer, whether NATS answers or not and whatever the
   * liveness round is waiting for (a relay cut off from NATS, renewals slower than the margin). A round
   * used to be the only place it happened, after the heartbeat answered.
   */
  #armFence(): void {
    this.#slotsChanged = false
    const at = this.#closed ? undefined : this.slots.nextFence()
    if (at === this.#fenceAt) return
    this.clock.clear(this.#fenceTimer)
    this.#fenceAt = at
    this.#fenceTimer = undefined
    if (at === undefined) return
    this.#fenceTimer = this.clock.set(() => {
      this.#fenceTimer = undefined
      this.#fenceAt = undefined
      void this.dispatch({ type: 'fence', now: this.clock.now() })
    }, at - this.clock.now())
  }

  /** Whether its accounts are this relay's. */
  ownedCount(): number {
    let n = 0
    for (const [partition] of this.slots.entries()) if (this.slots.isMine(partition)) n += this.table.keysOf(partition).size
    return n
  }

  ownedAccounts(): string[] {
    const keys: string[] = []
    for (const [partition] of this.slots.entries()) if (this.slots.isMine(partition)) for (const key of this.table.keysOf(partition)) keys.push(key)
    return keys
  }

  /** Logs what moved since the last report, as counts. */
  reportMoves(): void {
    const { taken, handedOver, lost, opened, from } = this.#moves
    this.#moves = noMoves()
    const { logger, membership, totalAccounts } = this.deps
    if (from.size > 0) logger.info({ partitions: [...from.values()].reduce((a, b) => a + b, 0), from: Object.fromEntries(from) }, 'took over partitions whose leases expired')
    if (taken > 0 || handedOver > 0 || lost > 0) {
      logger.info({ taken, handedOver, lost, partitions: this.slots.size, owned: this.opener.open.size, accounts: totalAccounts(), instances: membership.live().length }, 'partitions moved')
    }
    if (opened > 0) logger.info({ opened, owned: this.opener.open.size, accounts: totalAccounts() }, 'accounts moved')
  }

  /** Whether an event is being applied (every write of the partitions and accounts happens then). */
  get applying(): boolean {
    return this.#applying
  }

  /** Applies one event; returns the requests its caller waits for. */
  #apply(event: RelayEvent): Promise<unknown>[] {
    switch (event.type) {
      case 'openAccounts':
      case 'accountsBegun':
      case 'closeAccounts':
      case 'accountClosed':
      case 'reconcile':
        return this.opener.apply(event)
      case 'leaseTaken':
        return this.#leaseTaken(event.partition, event.epoch, event.sentAt, event.lease)
      case 'recordClaimed': {
        const { partition, epoch, record } = event
        if (record) this.#claimed.set(`${partition}:${epoch}`, record)
        else if (this.#claiming(partition, epoch)) this.#givenUp(partition, 'checkpoints not claimed', event.error)
        this.#slotsChanged = true
        return this.#run(this.slots.apply({ type: 'claimed', partition, epoch, ok: record !== undefined }))
      }
      case 'forget':
        if (!this.slots.holds(event.partition)) this.#forget(event.partition)
        return []
      case 'entry':
        this.#entry(event.entry)
        return []
      case 'leaseEntry':
        this.#leaseEntry(event.entry)
        return []
      case 'bucketReset':
        return this.#bucketReset(event.bucket)
      case 'readDone': {
        this.#slotsChanged = true
        const waits = this.#run(this.slots.apply({ type: 'read', partition: event.partition, epoch: event.epoch, ok: event.ok }))
        // A failed read proves nothing, and a partition let go (or taken again) meanwhile is not this read's.
        if (event.ok && this.slots.isMine(event.partition, event.epoch)) for (const key of this.#reads.missing(event)) this.#removeAccount(key, event.partition)
        return waits
      }
      default:
        this.#slotsChanged = true
        return this.#run(this.slots.apply(event))
    }
  }

  #run(effects: SlotEffect[]): Promise<unknown>[] {
    const waits: Promise<unknown>[] = []
    for (const effect of effects) {
      const wait = this.#effect(effect)
      if (wait) waits.push(wait)
    }
    return waits
  }

  /** Starts one effect; returns its request when the event's caller waits for it. */
  #effect(effect: SlotEffect): Promise<unknown> | undefined {
    const { leases } = this.deps
    switch (effect.type) {
      case 'take':
        return this.#take(effect.partition, effect.epoch)
      case 'renew':
        return this.#renew(effect.partition, effect.epoch, effect.revision)
      case 'returnTake':
        void leases.giveBack(String(effect.partition), effect.revision)
        return undefined
      case 'claim':
        void this.#claim(effect.batch)
        return undefined
      case 'adopt':
        this.#adopt(effect.partition, effect.epoch)
        return undefined
      case 'discard':
        this.#claimed.get(`${effect.partition}:${effect.epoch}`)?.drop()
        this.#claimed.delete(`${effect.partition}:${effect.epoch}`)
        return undefined
      case 'read':
        if (!this.#closed) this.#reads.start(effect.batch, effect.claimMs)
        return undefined
      case 'detach':
        this.opener.detach(this.table.keysOf(effect.partition))
        return undefined
      case 'stop':
        void this.#stop(effect.partition, effect.epoch)
        return undefined
      case 'giveBack':
        return this.#giveBack(effect.partition, effect.revision)
      case 'lost':
        return this.#lost(effect.partition, effect.why, effect.revision)
      case 'reconcile':
        this.opener.reconcileSoon()
        return undefined
    }
  }

  async #take(partition: number, epoch: number): Promise<void> {
    const sentAt = this.clock.now()
    const lease = await this.deps.leases.take(String(partition))
    await this.dispatch({ type: 'leaseTaken', partition, epoch, sentAt, lease })
  }

  #leaseTaken(partition: number, epoch: number, sentAt: number, lease: TakenLease | undefined): Promise<unknown>[] {
    // Taken back from the revision this relay wrote last: nobody owned it meanwhile, its kept accounts resume.
    if (lease) this.#fenced.retaken(partition, lease)
    this.#slotsChanged = true
    const waits = this.#run(this.slots.apply({ type: 'taken', partition, epoch, sentAt, revision: lease?.revision }))
    if (lease && this.slots.get(partition)?.epoch === epoch) {
      this.#moves.taken++
      if (lease.from) {
        this.deps.metrics.takeovers++
        this.#moves.from.set(lease.from, (this.#moves.from.get(lease.from) ?? 0) + 1)
      }
    }
    return waits
  }

  /** Whether the take of this epoch is still claiming its record (a claim handed over, or lost, before its turn must not fence the new owner). */
  #claiming(partition: number, epoch: number): boolean {
    const slot = this.slots.get(partition)
    return slot?.epoch === epoch && slot.phase === 'claiming'
  }

  async #renew(partition: number, epoch: number, revision: number): Promise<void> {
    const sentAt = this.clock.now()
    const result = await this.deps.leases.renew(String(partition), revision)
    await this.dispatch({ type: 'renewed', partition, epoch, sentAt, result })
    if (result === 'unknown') this.#renewSoon(partition)
  }

  /**
   * A renewal that got no answer is sent again a moment later (a second at most), not at the next full
   * round: a cluster node that has just come back refuses requests ("jetstream is not enabled") for
   * seconds, and two rounds of refusals reached the fence (docs/architecture.md, "Leases"). One timer for
   * all of them; the slots skip a partition no longer held or already renewing.
   */
  #renewSoon(partition: number): void {
    if (this.#closed) return
    this.#renewAgain.add(partition)
    this.#renewAgainTimer ??= this.clock.set(() => {
      this.#renewAgainTimer = undefined
      const partitions = [...this.#renewAgain]
      this.#renewAgain.clear()
      void runBounded(partitions, (p) => this.dispatch({ type: 'renew', partition: p }))
    }, this.#renewAgainMs)
  }

  /**
   * Claims the checkpoint records of partitions just taken (that fences a previous owner's writes before any
   * account opens here), CONCURRENCY at a time, then asks for their accounts to be read together.
   */
  async #claim(batch: Array<{ partition: number; epoch: number }>): Promise<void> {
    const started = this.clock.now()
    await runBounded(
      batch,
      async ({ partition, epoch }) => {
        let answer: { record: PartitionCheckpoint } | { error: unknown }
        try {
          answer = { record: await PartitionCheckpoint.claim(this.deps.checkpoints, partition, this.deps.id, this.#recordHooks(partition), () => this.#claiming(partition, epoch)) }
        } catch (error) {
          answer = { error }
        }
        await this.dispatch({ type: 'recordClaimed', partition, epoch, ...answer })
      },
      CONCURRENCY,
    )
    await this.dispatch({ type: 'claimsDone', batch, claimMs: this.clock.now() - started })
  }

  /** A claimed record kept: its accounts as its last owner left them are watched now (a takeover waits for one KV read, not the bucket's). */
  #adopt(partition: number, epoch: number): void {
    const record = this.#claimed.get(`${partition}:${epoch}`)
    this.#claimed.delete(`${partition}:${epoch}`)
    if (!record) return
    this.#records.set(partition, record)
    for (const [key, position] of record.accounts()) this.table.fromRecord(key, partition, position.since)
  }

  #givenUp(partition: number, what: string, error: unknown): void {
    const message = (error as Error)?.message ?? String(error)
    // Denied, it would be given back and planned here again every round: the relay withdraws instead.
    if (PERMISSION.test(message)) this.deps.denied?.('write checkpoints', message)
    if (this.deps.lines) this.deps.lines.add(`partitions given back, taken again in a later round: ${what}`, message, { partition })
    else this.deps.logger.warn({ partition }, `partition ${partition}: ${what} (${message}); given back, taken again in a later round`)
  }

  /** A release: its accounts stopped (checkpoints written after what is in flight), then the slot hears it. */
  async #stop(partition: number, epoch: number): Promise<void> {
    await this.dispatch({ type: 'closeAccounts', keys: [...this.table.keysOf(partition)] })
    // The accounts' last positions written before the lease goes: the next owner resumes there.
    if (this.slots.get(partition)?.epoch === epoch) await this.#records.get(partition)?.flush()
    await this.dispatch({ type: 'stopped', partition, epoch })
  }

  async #giveBack(partition: number, revision: number): Promise<void> {
    // Counted when accounts moved with it: an empty partition changing hands is not a handover anyone waits for.
    if (this.table.keysOf(partition).size > 0) this.deps.metrics.handoffs++
    this.#moves.handedOver++
    this.#forget(partition)
    await this.deps.leases.giveBack(String(partition), revision)
    await this.dispatch({ type: 'reconcile' })
  }

  /**
   * A partition lost: its accounts publish nothing more. Fenced (its renewal not confirmed in time: NATS
   * away), they keep their streams and what those bring until this relay takes it back (`FencedAccounts`);
   * lost to another relay, they stop at once. Then it is forgotten.
   */
  async #lost(partition: number, why: string, revision: number): Promise<void> {
    this.#records.get(partition)?.drop()
    this.deps.metrics.error('LEASE_LOST')
    this.#moves.lost++
    const keep = why === FENCED && !this.#closed && !this.slots.draining
    const what = keep ? 'lost partitions; their accounts keep what comes until taken back' : 'lost partitions; their accounts stopped'
    if (this.deps.lines) this.deps.lines.add(what, why, { partition })
    else this.deps.logger.warn({ partition }, `lost partition ${partition} (${why}); ${keep ? 'its accounts keep what comes until it is taken back' : 'its accounts stopped'}`)
    if (keep) {
      this.#fenced.park(partition, revision, this.opener.takeOut(this.table.keysOf(partition)))
      if (!this.slots.holds(partition)) this.#forget(partition)
      return
    }
    this.#fenced.drop(partition, 'another-owner')
    await this.dispatch({ type: 'closeAccounts', keys: [...this.table.keysOf(partition)], graceMs: 0 })
    await this.dispatch({ type: 'forget', partition })
  }

  /** A partition let go: its accounts are forgotten (an account it does not own costs it no memory). */
  #forget(partition: number): void {
    this.#records.delete(partition)
    this.table.forget(partition)
  }

  /** An entry of the accounts bucket, from its watch or a partition's read. */
  #entry(e: BucketEntry): void {
    const where = this.table.locate(e)
    if (!where || !this.slots.holds(where.partition)) return
    this.#reads.saw(e, where)
    const verdict = this.table.apply(e, where)
    if (verdict.kind === 'removed') this.#removed(verdict.key, verdict.partition)
    else if (verdict.kind === 'put') {
      // Accounts read by a partition's load open together when the loads are done (one subscribe frame per hub per batch).
      if (this.slots.isMine(verdict.partition) && !this.opener.has(verdict.key) && !this.#reads.reading) this.opener.reconcileSoon()
    }
  }

  /** An account removed from the bucket: let go, and its position forgotten (added again, it starts from its new entry). */
  #removeAccount(key: string, partition: number): void {
    this.table.remove(key, partition)
    this.#removed(key, partition)
  }

  #removed(key: string, partition: number): void {
    // An account still stopping takes its position out itself (it asks whether it is wanted when it is done).
    if (!this.opener.has(key)) this.#records.get(partition)?.forget(key)
    if (this.slots.isMine(partition)) this.opener.reconcileSoon()
  }

  /**
   * A bucket was reset: its leases (or the accounts, or the checkpoint records) this relay held are gone
   * with it. Every partition is let go at once (its accounts stopped; a checkpoint record that no longer
   * exists cannot fence anyone) and taken again by the next rounds from the new bucket, like a takeover.
   */
  #bucketReset(bucket: 'accounts' | 'leases' | 'checkpoints'): Promise<unknown>[] {
    this.#slotsChanged = true
    if (bucket === 'leases') {
      this.deps.leases.clear()
      this.deps.membership.clear()
    }
    const waits: Promise<unknown>[] = []
    for (const [partition] of [...this.slots.entries()]) if (this.slots.holds(partition)) waits.push(...this.#run(this.slots.apply({ type: 'lose', partition, why: `the ${bucket} bucket was reset` })))
    this.deps.livenessSoon()
    return waits
  }

  /** One bucket, two tables: heartbeats (`instances.<id>`) and partition leases (`partitions.<n>`). */
  #leaseEntry(e: KvEntry): void {
    const [kind, ...rest] = e.key.split('.')
    const key = rest.join('.')
    if (kind === 'instances') {
      this.deps.membership.onEntry(key, e)
      // A relay that left (drained) said so: look again now, not at the next timed round.
      if (e.operation !== 'PUT' && key !== this.deps.id) this.deps.livenessSoon()
    } else if (kind === 'partitions') {
      this.deps.leases.onEntry(key, e)
      if (e.operation !== 'PUT' && Number(key) >= 0) this.deps.livenessSoon()
      // Another relay's take of a lease this one holds (it judged it expired: a clock, a TTL, a cut): this
      // relay stops the partition the moment it sees it, not at its next renewal or checkpoint write.
      const partition = Number(key)
      const slot = this.slots.get(partition)
      const entry = this.deps.leases.entryOf(key)
      if (e.operation === 'PUT' && slot && this.slots.holds(partition) && e.revision > slot.revision && entry?.owner !== this.deps.id) {
        void this.dispatch({ type: 'lose', partition, why: entry?.owner ? `${entry.owner} took its lease` : 'its lease was overwritten' })
      }
    }
  }

  /** What a partition's checkpoint record asks of the relay. */
  #recordHooks(partition: number): RecordHooks {
    const { metrics, logger } = this.deps
    return {
      // Still held (a handover writes the checkpoints before giving the lease back) and renewed in time.
      fenced: () => (this.slots.get(partition)?.confirmedUntil ?? 0) <= this.clock.now(),
      // Only the record this relay holds now: a claim that lost a race with a newer one of ours is no news.
      stale: (record) => {
        if (this.#records.get(partition) === record) void this.dispatch({ type: 'lose', partition, why: 'another relay claimed its checkpoints' })
      },
      wrote: () => {
        metrics.checkpoints++
      },
      failed: (message) => {
        metrics.error('CHECKPOINT')
        if (PERMISSION.test(message)) this.deps.denied?.('write checkpoints', message)
        const why = 'written again in a second; a takeover meanwhile republishes (de-duplicated)'
        if (this.deps.lines) this.deps.lines.add(`checkpoints not written, ${why}`, message, { partition })
        else logger.warn({ partition }, `partition ${partition}: checkpoints not written (${message}); ${why}`)
      },
      warn: (fields, message) => logger.warn({ partition, ...fields }, message),
    }
  }
}
