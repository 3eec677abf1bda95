import type { ClientStats } from '@solver-notifications/core'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { PublishCause } from './JetStreamPublisher.js'
import { ACCOUNTS_BUCKET, CHECKPOINTS_BUCKET, LEASES_BUCKET } from './relayStorage.js'

/** What the metrics read at scrape time from the running relay. */
export interface MetricsSource {
  owned(): number
  /** partitions held */
  partitions?(): number
  /** partitions of the deployment */
  partitionCount?(): number
  accounts(): number
  pending(): number
  natsConnected(): boolean
  client(): ClientStats
}

/** One stream's notification count: its labels are fixed, so the hot path only adds 1 to a number. */
export interface StreamCount {
  readonly labels: { chain: string; solver: string; protocol: string }
  count: number
}

/** The slowest value seen in the last `windowMs`, kept in one-second buckets: reading it changes nothing. */
class SlidingMax {
  private readonly buckets: Array<{ second: number; max: number }>

  constructor(private readonly seconds: number) {
    this.buckets = Array.from({ length: seconds }, () => ({ second: -1, max: 0 }))
  }

  add(value: number, now = Date.now()): void {
    const second = Math.floor(now / 1000)
    const bucket = this.buckets[second % this.seconds]!
    if (bucket.second !== second) {
      bucket.second = second
      bucket.max = value
    } else if (value > bucket.max) bucket.max = value
  }

  read(now = Date.now()): number {
    const second = Math.floor(now / 1000)
    let max = 0
    for (const b of this.buckets) if (second - b.second < this.seconds && b.max > max) max = b.max
    return max
  }
}

/** Seconds from receiving a notification to JetStream's acknowledgement: loopback is sub-millisecond, a far NATS or a backlog seconds. */
const ACK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** Notification ages (seconds): sub-second for a healthy solver, minutes for a backlog. */
const AGE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900]

/** The relay's own error codes (a solver stream's codes join them as they happen). */
const RELAY_ERROR_CODES = ['PUBLISH', 'STREAM_MISSING', 'CHECKPOINT', 'WATCH', 'LEASE_LOST', 'UNAUTHORIZED'] as const
const PUBLISH_CAUSES: readonly PublishCause[] = ['permission', 'stream-full', 'no-stream', 'refused', 'timeout', 'closed']
const RELAY_BUCKETS = [ACCOUNTS_BUCKET, LEASES_BUCKET, CHECKPOINTS_BUCKET] as const
/**
 * Why notifications kept while fenced were dropped (the relay README, "NATS away longer than a lease"): another relay owned the
 * partition meanwhile, it was fenced longer than a relay keeps them, the bound on what is kept, the relay closed.
 */
export const KEPT_DROPS = ['another-owner', 'too-long', 'memory', 'closed'] as const
export type KeptDrop = (typeof KEPT_DROPS)[number]

let processRegistry: Registry | undefined

/**
 * The process metrics (CPU, memory, event loop, GC), collected once per process and shared by every relay
 * in it: `collectDefaultMetrics` starts a GC observer that is never stopped and holds its registry, so one
 * per relay kept every relay started and closed in a process (6 MiB each, tests and embedders).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

/**
 * The relay's counters and its Prometheus registry. The parts of the relay bump plain numbers (a
 * publish costs no label lookup); the registry copies them into `solver_relay_*` metrics when scraped.
 */
export class RelayMetrics {
  /** `solver_relay_*` (this relay's) and the process metrics (one set per process, shared) */
  readonly registry: Registry
  readonly #own = new Registry()
  received = 0
  published = 0
  duplicates = 0
  skipped = 0
  retries = 0
  checkpoints = 0
  takeovers = 0
  handoffs = 0
  /** entries of the leases bucket that were not leases (treated as expired and taken over) */
  garbageLeases = 0
  /** authentication errors NATS answered a reconnect with (a rotated password, an expired creds file) */
  natsAuthErrors = 0
  /** entries of the accounts bucket its watch delivered (what a reconnect costs it) */
  bucketEntries = 0
  /** keys of the accounts bucket not where this layout stores an account (reported, not watched) */
  misplacedKeys = 0
  private readonly streams = new Map<string, StreamCount>()
  // Every known label exists at 0 from the start: `rate()` and an alert on them work before the first
  // error (a Prometheus counter with no sample is "no data", not 0).
  private readonly errorCodes = new Map<string, number>(RELAY_ERROR_CODES.map((code) => [code, 0]))
  private readonly publishFailures = new Map<string, number>(PUBLISH_CAUSES.map((cause) => [cause, 0]))
  private readonly publishRetries = new Map<string, number>(PUBLISH_CAUSES.map((cause) => [cause, 0]))
  private readonly keptDrops = new Map<string, number>(KEPT_DROPS.map((why) => [why, 0]))
  /** notifications fenced accounts keep now (set by the coordinator) */
  kept = 0
  /** operations NATS denies this relay (its user's permissions): 1 each, for the rest of its run */
  readonly denied = new Map<string, number>()
  /** resets of each bucket noticed (gone, or its revisions went back) */
  readonly bucketResets = new Map<string, number>(RELAY_BUCKETS.map((bucket) => [bucket, 0]))
  private readonly backfillResults = { finished: 0, truncated: 0 }
  /** notifications a backfill brought that JetStream did not have, by protocol (the built-in ones from 0) */
  private readonly recoveredBy = new Map<string, number>([['enigma', 0], ['rasa', 0]])
  private readonly lag = new SlidingMax(10)
  private readonly ack: Histogram
  private readonly ages: Histogram

  constructor(source: MetricsSource) {
    const registers = [this.#own]
    const counter = (name: string, help: string, labelNames: string[], read: (set: (labels: Record<string, string>, value: number) => void) => void) =>
      new Counter({
        name,
        help,
        labelNames,
        registers,
        collect(this: Counter) {
          this.reset()
          read((labels, value) => this.inc(labels, value))
        },
      })
    const gauge = (name: string, help: string, labelNames: string[], read: (set: (labels: Record<string, string>, value: number) => void) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect(this: Gauge) {
          this.reset()
          read((labels, value) => this.set(labels, value))
        },
      })
    counter('solver_relay_notifications_total', 'Notifications received from the solvers and published (duplicates included).', ['chain', 'solver', 'protocol'], (set) => {
      for (const s of this.streams.values()) set(s.labels, s.count)
    })
    this.ack = new Histogram({ name: 'solver_relay_publish_ack_seconds', help: 'From receiving a notification to its JetStream acknowledgement.', buckets: ACK_BUCKETS, registers })
    this.ages = new Histogram({ name: 'solver_relay_notification_age_seconds', help: "A notification's age when its frame reached the relay: receive time less its modify_time (a slow solver, or a backlog in front of it).", buckets: AGE_BUCKETS, registers })
    gauge('solver_relay_accounts_owned', 'Accounts of the partitions this relay holds (it watches them, or opens them behind their checkpoints).', [], (set) => set({}, source.owned()))
    gauge('solver_relay_partitions_owned', 'Partitions this relay holds a lease for.', [], (set) => set({}, source.partitions?.() ?? 0))
    gauge('solver_relay_accounts', "Accounts in the accounts bucket, all partitions: its live keys (removed accounts and misplaced keys not counted).", [], (set) => set({}, source.accounts()))
    gauge('solver_relay_partitions', 'Partitions of the deployment (fixed for its life).', [], (set) => set({}, source.partitionCount?.() ?? 0))
    gauge('solver_relay_publishes_pending', 'Publishes waiting for a JetStream acknowledgement.', [], (set) => set({}, source.pending()))
    gauge('solver_relay_sockets', 'Solver sockets by state.', ['state'], (set) => {
      const s = source.client().socketStatus
      for (const state of ['connecting', 'open', 'reconnecting'] as const) set({ state }, s[state])
    })
    counter('solver_relay_reconnects_total', 'Solver socket re-dials after a drop.', [], (set) => set({}, source.client().reconnects))
    counter('solver_relay_backfills_total', 'History backfills after a drop or a takeover, by result.', ['result'], (set) => {
      set({ result: 'finished' }, this.backfillResults.finished)
      set({ result: 'truncated' }, this.backfillResults.truncated)
      set({ result: 'failed' }, source.client().backfills.failed)
    })
    counter('solver_relay_recovered_total', "Notifications a history backfill brought that JetStream did not have, by protocol: published while no relay watched the account (a takeover, a drain, a dropped socket). On enigma each is a transition recovered whole. On rasa, whose history keeps each quote's latest state only, each is a quote's latest state, and the quote's transitions before it in that gap are missing from the stream: alert on protocol=\"rasa\" and reconcile those quotes (each is logged; a consumer sees notification.source \"backfill\").", ['protocol'], (set) => {
      for (const [protocol, n] of this.recoveredBy) set({ protocol }, n)
    })
    counter('solver_relay_duplicates_total', 'Publishes JetStream recognised by Nats-Msg-Id as already stored (a takeover overlap).', [], (set) => set({}, this.duplicates))
    counter('solver_relay_errors_total', 'Errors by code (stream errors of the solvers, PUBLISH, STREAM_MISSING, CHECKPOINT, WATCH, LEASE_LOST, UNAUTHORIZED); every relay code is served from 0.', ['code'], (set) => {
      for (const [code, n] of this.errorCodes) set({ code }, n)
    })
    counter('solver_relay_publish_failures_total', 'Publishes JetStream has not stored 10 s after their first failure, once each, by cause: permission (the NATS user may not publish the subject), stream-full (limits with discard new), no-stream, refused, timeout, closed. Each is also a PUBLISH error; the checkpoint stays behind it and it is retried until stored. A blip whose retries succeed counts none.', ['cause'], (set) => {
      for (const [cause, n] of this.publishFailures) set({ cause }, n)
    })
    counter('solver_relay_publish_retries_total', 'Publish attempts JetStream did not store and that are sent again, by cause (a NATS node restarting, a leader election): no alert by itself; publish_failures_total counts the ones that last.', ['cause'], (set) => {
      for (const [cause, n] of this.publishRetries) set({ cause }, n)
    })
    counter('solver_relay_kept_dropped_total', 'Notifications a fenced relay kept (NATS away: it publishes nothing until it holds the partition again) and dropped, by why: another-owner (another relay owned the partition meanwhile: its owner resumes from the checkpoint, history covers what it can, rasa only the latest state), too-long (fenced past 60 s), memory (past 200,000 kept), closed.', ['why'], (set) => {
      for (const [why, n] of this.keptDrops) set({ why }, n)
    })
    gauge('solver_relay_kept', 'Notifications fenced accounts keep now, to publish when their partitions are this relay\'s again.', [], (set) => set({}, this.kept))
    counter('solver_relay_bucket_resets_total', "Resets of the relay's buckets it noticed (NATS lost its storage, or a bucket was deleted or recreated): logged once each; the bucket is recreated and read again from the start, and every partition taken again.", ['bucket'], (set) => {
      for (const [bucket, n] of this.bucketResets) set({ bucket }, n)
    })
    counter('solver_relay_lease_takeovers_total', 'Partitions (with accounts) taken over from a relay whose lease had expired (it died or stalled).', [], (set) => set({}, this.takeovers))
    counter('solver_relay_bucket_entries_total', 'Entries of the accounts bucket this relay\'s watch delivered: every entry at start, then changes (a NATS reconnect resumes after the last revision seen).', [], (set) => set({}, this.bucketEntries))
    counter('solver_relay_misplaced_keys_total', 'Keys of the accounts bucket that are not where this layout stores an account (the old unpartitioned form, or another partition than its own): logged once each, not watched, not counted in solver_relay_accounts.', [], (set) => set({}, this.misplacedKeys))
    counter('solver_relay_garbage_leases_total', 'Entries of the leases bucket that were not leases (not JSON, the wrong shape, an expiry beyond TTL + clock skew): logged once each, treated as expired and taken over by revision.', [], (set) => set({}, this.garbageLeases))
    counter('solver_relay_handoffs_total', 'Partitions (with accounts) handed over on purpose (rebalance, drain): checkpoints written, then the lease released.', [], (set) => set({}, this.handoffs))
    gauge('solver_relay_nats_connected', '1 while the connection to NATS is up.', [], (set) => set({}, source.natsConnected() ? 1 : 0))
    gauge('solver_relay_permission_denied', "1 for each operation NATS denies this relay's user (write checkpoints): the relay is not ready, withdrawn (its partitions go to the others), and /readyz names the permission.", ['operation'], (set) => {
      for (const [operation, n] of this.denied) set({ operation }, n)
    })
    counter('solver_relay_nats_auth_errors_total', 'Authentication errors NATS answered a reconnect with (a rotated password, an expired creds file): the relay keeps reconnecting, and /readyz names the refusal until one succeeds.', [], (set) => set({}, this.natsAuthErrors))
    this.registry = Registry.merge([this.#own, processMetrics()])
  }

  /** The counter of one solver stream (chain, solver, protocol): made once per account, bumped per notification. */
  stream(chainId: number, solverId: string, protocol: string): StreamCount {
    const key = `${chainId}\u0000${solverId}\u0000${protocol}`
    let s = this.streams.get(key)
    if (!s) {
      s = { labels: { chain: String(chainId), solver: solverId, protocol }, count: 0 }
      this.streams.set(key, s)
    }
    return s
  }

  /** A publish JetStream acknowledged `lagMs` after the notification arrived. */
  acked(lagMs: number, duplicate: boolean): void {
    this.published++
    if (duplicate) this.duplicates++
    this.ack.observe(lagMs / 1000)
    this.lag.add(lagMs)
  }

  /** A notification received `seconds` after its modify_time. */
  age(seconds: number): void {
    this.ages.observe(Math.max(0, seconds))
  }

  error(code: string): void {
    this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1)
  }

  /** One attempt of a publish JetStream did not store (it is sent again): a retry, by its cause. */
  retried(cause: string): void {
    this.retries++
    this.publishRetries.set(cause, (this.publishRetries.get(cause) ?? 0) + 1)
  }

  /** A publish JetStream has not stored for long (past a blip): a PUBLISH error, and counted by its cause. */
  publishFailed(cause: string): void {
    this.error('PUBLISH')
    this.publishFailures.set(cause, (this.publishFailures.get(cause) ?? 0) + 1)
  }

  /** `n` notifications kept while fenced were dropped, with why. */
  keptDropped(why: KeptDrop, n: number): void {
    this.keptDrops.set(why, (this.keptDrops.get(why) ?? 0) + n)
  }

  /** A notification of `protocol` a backfill brought that JetStream did not have (see `solver_relay_recovered_total`). */
  recovered(protocol: string): void {
    this.recoveredBy.set(protocol, (this.recoveredBy.get(protocol) ?? 0) + 1)
  }

  /** every notification counted by {@link recovered}, all protocols */
  get recoveredTotal(): number {
    let n = 0
    for (const v of this.recoveredBy.values()) n += v
    return n
  }

  backfill(result: 'finished' | 'truncated'): void {
    this.backfillResults[result]++
  }

  get errors(): number {
    let n = 0
    for (const v of this.errorCodes.values()) n += v
    return n
  }

  /** The slowest receive → acknowledged time of the last 10 seconds (ms). */
  get lagMs(): number {
    return this.lag.read()
  }
}
