import { type CheckpointStore, type Notification, type NotificationEvent, type NotificationsClient, notificationKey } from '@solver-notifications/core'
import type { Span, Tracer } from '@opentelemetry/api'
import type { Subscription } from 'rxjs'
import type { WatchedAccount } from './accountKeys.js'
import type { JetStreamPublisher, PublishError } from './JetStreamPublisher.js'
import type { Checkpoint, PartitionCheckpoint } from './PartitionCheckpoint.js'
import type { RelayLogger } from './relayLogger.js'
import type { RelayMetrics, StreamCount } from './RelayMetrics.js'
import { RECEIVED_AT_HEADER, TRACEPARENT_HEADER, publishSpan, traceparentOf } from './tracing.js'
import type { RepeatedLines } from './RepeatedLines.js'

/**
 * The resume streams' de-duplication key: the notification's content (quote, modify_time, action, status,
 * state type, amounts as decimals), never the id alone (a reused id is another transition).
 * The relay's `Nats-Msg-Id` is the account key, a dot, and this.
 *
 * @example
 * const msgId = `${accountKey(42161, 'beta', n.account)}.${dedupeKey(n)}`
 */
export function dedupeKey(n: Notification): string {
  // The library's one definition of "the same notification", so the relay and resume agree.
  return notificationKey(n)
}

/**
 * The checkpoint store of a relay's resume streams (one object for all of them, so they share one
 * settings object): each stream's position goes to its account's relay, which keeps its own checkpoint
 * behind it. Never read (a stream starts from the `since` its relay gives).
 *
 * @example
 * const positions = new StreamPositions() // one per relay, in its AccountContext
 */
export class StreamPositions implements CheckpointStore {
  /** by account key (the string each account already holds: nothing more per account than the entry) */
  readonly #accounts = new Map<string, AccountRelay>()
  get(): undefined {
    return undefined
  }
  /** `key` is core's checkpoint key (`chainId:solverId:account`), the account key with colons for dots. */
  set(key: string, since: number): void {
    this.#accounts.get(key.replaceAll(':', '.'))?.whole(since)
  }
  /** the account's stream writes to it from now */
  add(account: AccountRelay): void {
    this.#accounts.set(account.watched.key, account)
  }
  /** nothing of the account is kept once it let go (its successor, if any, stays) */
  delete(account: AccountRelay): void {
    if (this.#accounts.get(account.watched.key) === account) this.#accounts.delete(account.watched.key)
  }
}

/** What every account of a relay shares (one object per relay, not per account). */
export interface AccountContext {
  client: NotificationsClient
  /** where the accounts' resume streams write the positions they would resume from */
  positions: StreamPositions
  publisher: JetStreamPublisher
  /** subjects are `<subjectPrefix>.<account key>` */
  subjectPrefix: string
  metrics: RelayMetrics
  logger: RelayLogger
  /** the wire protocol of the account's solver (a metrics label) */
  protocolOf: (watched: WatchedAccount) => string
  /** a publish failed: makes sure the stream exists (re-creating it if it was deleted); true when it was missing */
  streamLost: () => Promise<boolean>
  /** the tracer of the publishes now, or undefined while nothing traces (then no span: only the header) */
  tracer: () => Tracer | undefined
  /** what happens by the thousand in an outage (failed publishes) is one line a second, counted by cause */
  lines?: RepeatedLines | undefined
  /** the relay's `verify` option: off unless it says so */
  verify?: boolean | { intervalMs?: number | undefined } | undefined
  /** NATS refuses this relay's user the publish (its permissions): the relay withdraws and says so */
  denied?: ((message: string) => void) | undefined
  /** protocols whose history keeps each quote's latest state only, as their streams said (`latest-state-only`) */
  latestStateOnly?: Set<string> | undefined
  /** notifications kept by fenced accounts went up or down by `n` (their bound, see `FencedAccounts`) */
  kept?: ((n: number) => void) | undefined
}

interface Pending {
  n: Notification
  /** its place in what the account received (kept publishes go out again in that order) */
  seq: number
  /** its de-duplication key, and the `Nats-Msg-Id` made of it */
  key: string
  msgId: string
  receivedAt: number
  /** when its first attempt failed (a publish still not stored `STUCK_MS` later counts as a PUBLISH failure, once) */
  failingSince?: number | undefined
  counted?: boolean | undefined
  attempt: number
  /** its PRODUCER span and the `traceparent` it travels with, made at its first publish when something traces */
  span?: Span | undefined
  traceparent?: string | undefined
}

/** The aggregated warn line of recovered latest states (one a second, counted by protocol). */
export const LATEST_STATES = 'latest states recovered from history, the transitions before them may be missing'

/** A publish not stored this long after its first failure is a PUBLISH failure (once): past a blip. */
export const STUCK_MS = 10_000
const RETRY_MAX_MS = 5_000
/** How long opening an account waits for its first backfill before the next account is opened anyway. */
const FIRST_BACKFILL_WAIT_MS = 10_000

/**
 * One owned account: a resume stream from its checkpoint into JetStream, each notification published
 * with `Nats-Msg-Id` so overlapping relays publish it once. The checkpoint moves only behind
 * acknowledged publishes and never past what the resume stream says is whole (through
 * {@link StreamPositions}, the stream writes the position it would resume from, gaps not backfilled yet
 * and held frames included), so a relay that takes the account over resumes where nothing can be missing.
 */
export class AccountRelay {
  private subscription: Subscription | undefined
  /** publishes not acknowledged yet (made at the first publish: an idle account holds no set) */
  private pending: Set<Pending> | undefined
  /** newest modify_time acknowledged, and the ids acknowledged at exactly that second */
  private acked: number
  private ackedIds: Set<string> | undefined
  /**
   * where the resume stream says it would resume from with nothing missing (what it last wrote: at most
   * a second old, and a position only moves forward, so an older one is only safer)
   */
  private wholeFrom: number
  /** the checkpoint's own second and its ids, until a backfill has finished (its rows cannot come again after it) */
  private skip: Checkpoint | undefined
  private retryTimers: Set<ReturnType<typeof setTimeout>> | undefined
  private stopped = false
  /**
   * fenced (its partition's lease could not be confirmed: NATS away): nothing is published, what arrives
   * and what was not stored is kept here until the partition is this relay's again (`FencedAccounts`)
   */
  private kept: Pending[] | undefined
  private received = 0
  private readonly count: StreamCount
  /** settles the first backfill's wait; gone once it did */
  private settleFirstBackfill: (() => void) | undefined

  constructor(
    readonly watched: WatchedAccount,
    /** shared by every account of the relay: nothing per account in it */
    private readonly ctx: AccountContext,
    /** its partition's checkpoints: told when the position moves, written once for all the partition's accounts */
    private record: PartitionCheckpoint,
    start: Checkpoint,
  ) {
    this.acked = start.since
    // The first backfill covers from the resume position: until the stream says more, that is where it is whole.
    this.wholeFrom = start.since
    this.count = ctx.metrics.stream(watched.chainId, watched.solverId, ctx.protocolOf(watched))
    this.skip = start.ids.length > 0 ? start : undefined
    if (start.ids.length > 0) this.ackedIds = new Set(start.ids)
  }

  /**
   * An account resuming from its partition's checkpoint (else from `fallbackSince`); subscribes nothing
   * yet, so a batch of accounts can subscribe in one tick ({@link begin}) and a rasa hub sends one
   * frame for all of them.
   */
  static prepare(watched: WatchedAccount, ctx: AccountContext, record: PartitionCheckpoint, fallbackSince: number): AccountRelay {
    return new AccountRelay(watched, ctx, record, record.positionOf(watched.key) ?? { since: fallbackSince, ids: [] })
  }

  /**
   * Subscribes; resolves once its first backfill ended (or failed, to be retried, or took too long):
   * the caller bounds the history requests a takeover of thousands of accounts makes by how many it starts at once.
   */
  begin(): Promise<void> {
    if (this.stopped || this.subscription) return Promise.resolve()
    const first = new Promise<void>((resolve) => {
      this.settleFirstBackfill = resolve
    })
    this.subscribe()
    let timer: ReturnType<typeof setTimeout> | undefined
    return Promise.race([first, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_BACKFILL_WAIT_MS)))]).then(() => {
      // Settled: its wait is let go at once (a takeover of thousands of accounts would otherwise keep a timer each for seconds).
      clearTimeout(timer)
      this.settleFirstBackfill = undefined
    })
  }

  private subscribe(): void {
    const { client } = this.ctx
    const { account, chainId, solverId } = this.watched
    // No history polling while a socket is down: a relay watches thousands of accounts, and polling
    // each of them every few seconds during a solver's socket outage would flood its history API; the
    // reconnect backfill closes the gap once the socket is back, from the same position.
    // The relay is its own observer (`next` below): no callback and context per account.
    this.ctx.positions.add(this)
    this.subscription = client.events({ account, chainId, solverId }, { resume: { since: this.acked, poll: false, verify: this.ctx.verify ?? false, checkpoint: this.ctx.positions } }).subscribe(this)
  }

  /** The position its stream would resume from now (docs/guide/resume.md, "Checkpoints"). */
  whole(since: number): void {
    this.wholeFrom = since
    if (!this.stopped) this.record.moved(this)
  }

  /** The account's stream: notifications are relayed; errors counted and logged; a backfill that covered the gap lets the checkpoint move. */
  next(event: NotificationEvent): void {
    if (event.type === 'notification') this.relay(event.notification)
    else if (event.type === 'error') {
      this.settleFirstBackfill?.()
      this.ctx.metrics.error(event.error.code)
      this.ctx.logger.warn({ account: this.watched.key, code: event.error.code }, `${this.watched.key}: ${event.error.code}: ${event.error.message}`)
    } else if (event.type === 'continuity') {
      // Said by a stream whose backfill recovered states, before their acknowledgements: a property of the
      // protocol's history, kept once per relay (nothing per account).
      if (event.continuity.reason === 'latest-state-only') (this.ctx.latestStateOnly ??= new Set()).add(this.ctx.protocolOf(this.watched))
    }
    else if (event.backfill?.state === 'finished' || event.backfill?.state === 'truncated') {
      // A finished backfill covered the checkpoint's second: its rows cannot come again, and the list is let go.
      if (event.backfill.state === 'finished') this.skip = undefined
      // An account with nothing to relay is in its record from here (the stream writes no position then).
      this.record.moved(this)
      this.settleFirstBackfill?.()
      this.ctx.metrics.backfill(event.backfill.state)
    }
  }

  private relay(n: Notification): void {
    if (this.stopped) return
    const key = dedupeKey(n)
    // Relayed before the takeover, at the checkpoint's own second: JetStream may have forgotten the id.
    const skip = this.skip
    if (skip && n.modifyTime === skip.since && skip.ids.includes(key)) {
      this.ctx.metrics.skipped++
      return
    }
    this.ctx.metrics.received++
    this.count.count++
    if (n.modifyTime !== null) this.ctx.metrics.age(Date.now() / 1000 - n.modifyTime)
    this.publish({ n, key, msgId: `${this.watched.key}.${key}`, receivedAt: Date.now(), attempt: 0, seq: ++this.received })
  }

  private publish(p: Pending): void {
    ;(this.pending ??= new Set()).add(p)
    if (this.kept) {
      this.kept.push(p)
      this.ctx.kept?.(1)
      return
    }
    const { publisher, subjectPrefix } = this.ctx
    const subject = `${subjectPrefix}.${this.watched.key}`
    if (p.attempt === 0) {
      const tracer = this.ctx.tracer()
      if (tracer) {
        p.span = publishSpan(tracer, subjectPrefix, subject, p.msgId)
        p.traceparent = traceparentOf(p.span.spanContext())
      }
    }
    const receivedAt = String(p.receivedAt)
    const traceparent = p.traceparent
    publisher.publish(
      subject,
      JSON.stringify(p.n),
      p.msgId,
      (error, duplicate) => {
        if (error) void this.retry(p, error)
        else this.acknowledged(p, duplicate)
      },
      (h) => {
        h.set(RECEIVED_AT_HEADER, receivedAt)
        if (traceparent) h.set(TRACEPARENT_HEADER, traceparent)
      },
    )
  }

  private acknowledged(p: Pending, duplicate: boolean): void {
    this.pending?.delete(p)
    p.span?.end()
    this.ctx.metrics.acked(Date.now() - p.receivedAt, duplicate)
    if (!duplicate && p.n.source === 'backfill') this.recovered(p.n)
    const t = p.n.modifyTime
    if (t !== null && t > this.acked) {
      this.acked = t
      this.ackedIds = undefined
    }
    if (t === this.acked) (this.ackedIds ??= new Set()).add(p.key)
    if (!this.stopped) this.record.moved(this)
  }

  /**
   * A notification history brought that JetStream did not have: nobody published it, so it was published
   * while no relay watched the account (a takeover, a drain, a dropped socket). Where history keeps each
   * quote's latest state only (rasa: the stream said `latest-state-only`), the quote's transitions before
   * it in that gap are gone: counted and said, never silent (packages/relay/README.md, "Recovered states").
   */
  private recovered(n: Notification): void {
    this.ctx.metrics.recovered(n.protocol)
    if (this.ctx.latestStateOnly?.has(n.protocol)) this.ctx.lines?.add(LATEST_STATES, n.protocol, { account: this.watched.key, quoteId: n.quoteId, modifyTime: n.modifyTime })
  }

  /** NATS away, JetStream slow, or the stream deleted: kept pending (the checkpoint stays behind it), the stream made sure of, and sent again. */
  private async retry(p: Pending, cause: PublishError): Promise<void> {
    const { metrics } = this.ctx
    // Each attempt that failed is a retry (a metric of its own); a publish still not stored STUCK_MS after
    // its first failure is a PUBLISH failure with its cause, once: the alert of the README. A blip whose
    // retries all succeed raises no alert; a relay letting the account go is not one either.
    metrics.retried(cause.kind)
    // Denied, it would be retried here for ever: the relay withdraws, so another relay (one its user lets publish) owns the account.
    if (cause.kind === 'permission') this.ctx.denied?.(cause.message)
    p.failingSince ??= Date.now()
    // A permission does not come back by itself: that failure counts at once.
    if (!this.stopped && !p.counted && (cause.kind === 'permission' || Date.now() - p.failingSince >= STUCK_MS)) {
      p.counted = true
      metrics.publishFailed(cause.kind)
    }
    if (p.attempt === 0) {
      const fields = { account: this.watched.key, cause: cause.kind, example: cause.message }
      if (this.ctx.lines) this.ctx.lines.add('publishes failed, retrying', cause.kind, fields)
      else this.ctx.logger.warn(fields, `${this.watched.key}: publish failed (${cause.message}); retrying`)
    }
    const missing = await this.ctx.streamLost().catch(() => false)
    // A missing stream is an error an operator must hear about, every time it costs a publish.
    if (missing) metrics.error('STREAM_MISSING')
    const delay = missing ? 0 : Math.min(100 * 2 ** p.attempt, RETRY_MAX_MS)
    const timers = (this.retryTimers ??= new Set())
    const timer = setTimeout(() => {
      timers.delete(timer)
      this.pending?.delete(p)
      // Let go meanwhile: the checkpoint stayed behind it, so the next owner publishes it.
      if (!this.stopped) this.publish({ ...p, attempt: p.attempt + 1 })
    }, delay)
    timers.add(timer)
  }

  /** Where a takeover may resume with nothing missing: behind every unacknowledged publish and where the stream is not whole. */
  private position(): number {
    let at = this.acked
    for (const p of this.pending ?? []) if (p.n.modifyTime !== null && p.n.modifyTime < at) at = p.n.modifyTime
    if (this.wholeFrom < at) at = this.wholeFrom
    return at
  }

  /** Where a takeover resumes: behind what is unacknowledged or uncovered, with the ids acknowledged at that second. */
  checkpoint(): Checkpoint {
    const since = this.position()
    return { since, ids: since === this.acked ? [...(this.ackedIds ?? [])] : [] }
  }

  get inFlight(): number {
    return this.pending?.size ?? 0
  }

  /** Notifications kept while fenced, not published yet. */
  get keptCount(): number {
    return this.kept?.length ?? 0
  }

  /** Its partition's lease could not be confirmed: it publishes nothing more and keeps what comes (its stream goes on). */
  fence(): void {
    this.kept ??= []
  }

  /**
   * Its partition is this relay's again and nobody else owned it meanwhile: what was kept is published,
   * in the order it was received, and its position goes to the partition's new record.
   */
  unfence(record: PartitionCheckpoint): void {
    const kept = (this.kept ?? []).sort((a, b) => a.seq - b.seq)
    this.kept = undefined
    this.ctx.kept?.(-kept.length)
    this.record = record
    for (const p of kept) {
      this.pending?.delete(p)
      this.publish(p)
    }
    if (!this.stopped) this.record.moved(this)
  }

  /** Out of its hub now (no more frames); {@link stop} then waits for what is in flight. */
  detach(): void {
    this.subscription?.unsubscribe()
    this.ctx.positions.delete(this)
    // Its first backfill will never come now: whoever waits for it (the batch being opened) goes on at once.
    this.settleFirstBackfill?.()
  }

  /**
   * Lets the account go: no more frames, waits (up to `graceMs`) for publishes in flight, gives its
   * last position to its partition's record (the caller flushes that before the lease is released),
   * or, when it was removed from the bucket (`forget`, asked when it is done), takes its position out of the record.
   */
  async stop(graceMs = 5_000, forget: boolean | (() => boolean) = false): Promise<void> {
    if (this.stopped) return
    this.subscription?.unsubscribe()
    this.ctx.positions.delete(this)
    this.settleFirstBackfill?.()
    if (this.kept) {
      // Kept while fenced and given up now: the caller counted them (a drop has a reason).
      this.ctx.kept?.(-this.kept.length)
      for (const p of this.kept) this.pending?.delete(p)
      this.kept = undefined
    }
    const deadline = Date.now() + graceMs
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    this.stopped = true
    // Publishes given up here: their spans end (the next owner publishes them again).
    for (const p of this.pending ?? []) p.span?.end()
    for (const timer of this.retryTimers ?? []) clearTimeout(timer)
    this.retryTimers = undefined
    if (typeof forget === 'function' ? forget() : forget) this.record.forget(this.watched.key, this)
    else this.record.moved(this)
  }
}
