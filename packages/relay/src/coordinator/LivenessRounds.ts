import type { RelayClock, RelayTimer } from '../RelayClock.js'
import type { KV } from '@nats-io/kv'
import type { LeaseTable } from '../LeaseTable.js'
import type { Membership } from '../Membership.js'
import { nextRound, readNow } from '../nextRound.js'
import { assignPartitions } from '../partitions.js'
import type { RelayLogger } from '../relayLogger.js'
import type { Coordinator } from './Coordinator.js'
import { runBounded } from './runBounded.js'

/** What the rounds are given. */
export interface RoundDeps {
  id: string
  partitions: number
  leaseTtlMs: number
  membership: Membership
  leases: LeaseTable
  accountsKv: KV
  coordinator: Coordinator
  logger: RelayLogger
  /** looks for a bucket NATS lost (or a watch that ended), before every full round */
  checkBuckets?: (() => Promise<void>) | undefined
}

/**
 * The liveness rounds, on their own timer: a full round writes the heartbeat and renews every held lease, an
 * interval apart however long each took; an early one (a lease or a heartbeat this relay waited for ran out,
 * or the plan changed) only plans and takes (see nextRound). Each step is an event for the coordinator; the
 * rounds hold only their schedule.
 *
 * @example
 * const rounds = new LivenessRounds(deps)
 * rounds.start()
 */
export class LivenessRounds {
  /** accounts in the bucket (all partitions), refreshed every round */
  totalAccounts = 0
  /** a heartbeat was written (the relay joined) */
  joined = false
  readonly #interval: number
  #timer: RelayTimer | undefined
  #ticking: Promise<void> | undefined
  #soon = false
  /** the live keys of the accounts bucket, as counted at its last revision */
  #counted: { lastSeq: number; live: number } | undefined
  /** when the last full round started */
  #lastFull = 0
  #nextExpiry: number | undefined
  /** the last round left its partitions' read to this one (see readNow) */
  #readPutOff = false
  #closed = false
  /** the bucket check and the heartbeat of a round, while they have not answered */
  #checking: Promise<void> | undefined
  #beating: Promise<void> | undefined
  /** how long a full round's renewals wait for its bucket check and heartbeat at most */
  readonly #beforeRenewalsMs: number
  /** how long a listing of the accounts may deliver nothing before it is given up */
  readonly #stallMs: number

  /** the coordinator's clock: rounds run on the time its decisions are made at */
  readonly #clock: RelayClock

  constructor(private readonly deps: RoundDeps) {
    this.#clock = deps.coordinator.clock
    this.#interval = Math.max(200, Math.floor(deps.leaseTtlMs / 3))
    this.#beforeRenewalsMs = Math.min(1_000, Math.floor(this.#interval / 5))
    this.#stallMs = Math.max(1_000, this.#interval)
  }

  start(): void {
    this.#runTick(true)
  }

  /** No round starts from now on; resolves when the one under way ended. */
  async stop(): Promise<void> {
    this.#closed = true
    this.#clock.clear(this.#timer)
    await this.#ticking
    this.#clock.clear(this.#timer)
    // A heartbeat still on its way is written before a drain deletes it, and a check ends before the close ends its connections.
    await Promise.all([this.#beating, this.#checking])
  }

  /** Another relay left or gave a lease back: the plan looks at once (after the round under way, if any). */
  soon(): void {
    // Before the first round (the watches deliver a drained relay's delete markers at start) there is
    // nothing to hurry: that round plans from everything seen, and a timer set now would run beside it.
    if (this.#closed || this.deps.coordinator.slots.draining || this.#lastFull === 0) return
    this.#soon = true
    if (this.#ticking) return
    this.#clock.clear(this.#timer)
    this.#schedule()
  }

  #schedule(): void {
    if (this.#closed) return
    const { delay, full } = nextRound({ now: this.#clock.now(), lastFull: this.#lastFull, interval: this.#interval, soon: this.#soon, wakeAt: this.#nextExpiry })
    this.#soon = false
    this.#timer = this.#clock.set(() => this.#runTick(full), delay)
  }

  #runTick(full: boolean): void {
    if (full) this.#lastFull = this.#clock.now()
    this.#ticking = this.#round(full)
      .catch((error: unknown) => this.deps.logger.warn({}, `round failed: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        this.#ticking = undefined
        this.#schedule()
      })
  }

  /**
   * The live keys of the accounts bucket. Not its stream's message count: that keeps a delete marker per
   * removed account, and counting those shrank every relay's share (600 accounts with room for 1,000
   * left a sixth ownerless for good). The keys are listed again only when the bucket changed. A listing
   * that delivers nothing for a while is given up (the count kept): nats.js never ends one that NATS cut
   * off by restarting empty, and a round waiting on it ran no bucket check again, so nothing recreated
   * the buckets it was waiting for (docs/architecture.md, "Leases").
   */
  async #countAccounts(): Promise<number> {
    const kv = this.deps.accountsKv
    const lastSeq = (await kv.status()).streamInfo.state.last_seq
    if (this.#counted?.lastSeq === lastSeq) return this.#counted.live
    const keys = await kv.keys()
    let live = 0
    let timer: RelayTimer | undefined
    const stalled = new Promise<never>((_, reject) => {
      let seen = -1
      const watch = () => {
        if (live === seen) return reject(new Error(`listing the accounts stalled after ${live} keys`))
        seen = live
        timer = this.#clock.set(watch, this.#stallMs)
      }
      watch()
    })
    const listing = (async () => {
      for await (const _key of keys) live++
    })()
    listing.catch(() => {}) // what a listing given up does later is nobody's concern
    try {
      await Promise.race([listing, stalled])
    } finally {
      this.#clock.clear(timer)
      // A listing given up still holds a consumer: released.
      ;(keys as { stop?: () => void }).stop?.()
    }
    this.#counted = { lastSeq, live }
    return live
  }

  /**
   * The bucket check and the heartbeat, which come before the renewals but never hold them back for
   * longer than a short budget: on a cluster electing a leader each of them can wait for a request's
   * timeout, one after another, and renewals held behind them came after the fence and left accounts
   * ownerless (docs/architecture.md, "Leases"). What has not answered within the budget goes on
   * beside the round; the next round shares a check or a heartbeat still under way instead of asking again.
   */
  async #checkAndBeat(): Promise<void> {
    const { logger, checkBuckets, membership, coordinator } = this.deps
    // A bucket NATS lost is noticed here too, not only after a reconnect (a deleted stream does not disconnect).
    this.#checking ??= (checkBuckets?.() ?? Promise.resolve())
      .catch((error: unknown) => logger.warn({}, `bucket check failed: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        this.#checking = undefined
      })
    // A draining relay has deleted its heartbeat (the others plan without it): it writes none again.
    if (!coordinator.slots.draining)
      this.#beating ??= membership
        .beat()
        .then(
          () => {
            this.joined = true
          },
          (error: unknown) => logger.warn({}, `heartbeat not written, written again next round: ${(error as Error)?.message ?? String(error)}`),
        )
        .finally(() => {
          this.#beating = undefined
        })
    let timer: RelayTimer | undefined
    const budget = new Promise<void>((resolve) => {
      timer = this.#clock.set(resolve, this.#beforeRenewalsMs)
    })
    await Promise.race([Promise.all([this.#checking, this.#beating]), budget])
    this.#clock.clear(timer)
  }

  async #round(full: boolean): Promise<void> {
    const { coordinator, membership, leases, id, partitions } = this.deps
    const { slots } = coordinator
    const started = this.#clock.now()
    if (full) await this.#checkAndBeat()
    const now = this.#clock.now()
    await coordinator.dispatch({ type: 'fence', now })
    if (full) await runBounded([...slots.entries()].map(([p]) => p), (partition) => coordinator.dispatch({ type: 'renew', partition }))
    const renewed = this.#clock.now()
    // Every account in the bucket: a relay reads only its own partitions' keys, so the bucket is asked.
    this.totalAccounts = await this.#countAccounts().then(
      (live) => Math.max(0, live - coordinator.table.misplacedCount),
      () => this.totalAccounts,
    )
    const accountsPerPartition = Math.max(1, this.totalAccounts) / partitions
    const members = membership.live().map((m) => ({
      id: m.id,
      // A relay withdrawn (capacity 0) holds none; any other at least one.
      maxPartitions: m.maxAccounts >= Number.MAX_SAFE_INTEGER ? undefined : m.maxAccounts <= 0 ? 0 : Math.max(1, Math.floor(m.maxAccounts / accountsPerPartition)),
    }))
    const plan = slots.draining ? undefined : assignPartitions(partitions, members, (p) => leases.ownerOf(String(p)))
    const mine = new Set<number>()
    if (plan) for (let p = 0; p < partitions; p++) if (plan.owners[p] === id) mine.add(p)
    // Handovers run beside the timer (they wait for publishes and checkpoints); takes are quick KV requests.
    const releasing = [...slots.entries()].filter(([, s]) => s.phase === 'releasing').length
    await coordinator.dispatch({ type: 'plan', mine })
    const toRelease = [...slots.entries()].filter(([, s]) => s.phase === 'releasing').length - releasing
    const planned = this.#clock.now()
    const toTake = [...mine].filter((p) => !slots.get(p))
    await runBounded(toTake, (partition) => coordinator.dispatch({ type: 'take', partition }))
    const notTaken = toTake.filter((p) => !slots.holds(p)).length
    this.deps.logger.debug({ full, beatMs: now - started, renewMs: renewed - now, planMs: planned - renewed, takeMs: this.#clock.now() - planned, toTake: toTake.length, notTaken, toRelease }, 'round')
    // Partitions taken together are read together, beside the timer; with the rest of a takeover when its leases run out in a moment.
    const waiting = toTake.filter((p) => !slots.holds(p)).map((p) => leases.expiryOf(String(p)))
    const putOff = this.#readPutOff
    this.#readPutOff = !readNow({ now: this.#clock.now(), taken: toTake.length - notTaken, waiting, putOff })
    if (!this.#readPutOff) void coordinator.dispatch({ type: 'load', now: this.#clock.now() })
    if (toTake.length > 0 || toRelease > 0) void coordinator.dispatch({ type: 'reconcile' })
    coordinator.reportMoves()
    // A relay that stopped beating, or a partition still leased by one: look again the moment it runs out.
    let next = membership.nextExpiry()
    for (const p of toTake) if (!slots.holds(p)) next = Math.min(next ?? Number.POSITIVE_INFINITY, leases.expiryOf(String(p)) ?? Number.POSITIVE_INFINITY)
    this.#nextExpiry = next
  }
}
