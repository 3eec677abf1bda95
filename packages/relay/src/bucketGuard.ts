import { type KV, Kvm } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/nats-core'
import type { BucketFollower } from './followBucket.js'

/** One of the relay's buckets, as the guard looks after it. */
export interface GuardedBucket {
  name: string
  kv: KV
  /** the connection to recreate it on */
  nc: NatsConnection
  /** its watch, if the relay follows it */
  follower?: BucketFollower | undefined
  /** copies JetStream keeps when it is recreated (the relay's `replicas`) */
  replicas?: number | undefined
  /**
   * What the relay writes into the bucket once it was reset (the deployment's config): tried after the
   * reset and again at every later look until it resolves (a write that failed once is not given up).
   */
  repair?: (() => Promise<void>) | undefined
}

/** Readings that must agree before a suspected reset is acted on, and how far apart (a leader election on a cluster takes about a second or two). */
const CONFIRM_READINGS = 2
const CONFIRM_DELAY_MS = 1_000

/** Why a bucket counts as reset. */
export type ResetCause = 'gone' | 'revisions went back'

/**
 * Notices that NATS lost a bucket (a lost volume, a deleted stream, a server restarted empty): the bucket is
 * gone, or its revisions went back below what this relay's watch delivered. It then recreates what is
 * missing (the relay owns the creation of its buckets), says so once per reset (log and metric, through
 * `reset`), reads the bucket again from the start, and lets the relay forget what it held of it — without a
 * restart. A watch that ended by itself is started again. Run after every NATS reconnect and every full round.
 *
 * @example
 * const guard = new BucketGuard(buckets, (bucket, cause, detail) => relay.bucketReset(bucket, cause, detail))
 * await guard.check()
 */
export class BucketGuard {
  #checking: Promise<void> | undefined
  /** each bucket's stream creation time as first seen: a bucket recreated (by anyone) has another */
  readonly #created = new Map<string, string>()
  /** buckets reset whose repair has not landed yet */
  readonly #owed = new Set<string>()

  constructor(
    private readonly buckets: readonly GuardedBucket[],
    /** a bucket was reset: forget what was held of it (called before its watch reads it again) */
    private readonly reset: (bucket: string, cause: ResetCause, detail: string) => Promise<void> | void,
    /** between the readings that confirm a suspected reset */
    private readonly confirmDelayMs = CONFIRM_DELAY_MS,
  ) {}

  /** Looks at every bucket once (one look at a time: a reconnect and a round share it). */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined
    })
    return this.#checking
  }

  async #check(): Promise<void> {
    for (const bucket of this.buckets) {
      await this.#look(bucket)
      if (this.#owed.has(bucket.name)) await this.#repair(bucket)
    }
  }

  async #repair(bucket: GuardedBucket): Promise<void> {
    try {
      await bucket.repair?.()
      this.#owed.delete(bucket.name)
    } catch {
      // written again at the next look (the repair says why it failed)
    }
  }

  async #look(bucket: GuardedBucket): Promise<void> {
    // Read before the request: the watch may deliver newer revisions while the answer is on its way, and
    // a revision seen before asking can never be above the stream's last one unless the stream is another.
    const seenBefore = bucket.follower?.last ?? 0
    let lastSeq: number
    let created: string
    try {
      const info = (await bucket.kv.status()).streamInfo
      lastSeq = info.state.last_seq
      created = info.created
    } catch (error) {
      // NATS away (a reconnect runs this again): nothing to conclude. A bucket that is not there any more
      // is recreated, once later readings agree: a node of a cluster that just restarted answers "not
      // found" until it has caught up with the cluster's streams.
      if (!/not found/i.test((error as Error)?.message ?? '')) return
      if (!(await this.#goneStill(bucket))) return
      try {
        await new Kvm(bucket.nc).create(bucket.name, { history: 1, replicas: bucket.replicas ?? 1 })
      } catch {
        return // could not recreate it now: the next round tries again
      }
      this.#created.delete(bucket.name)
      await this.#reset(bucket, 'gone', `bucket ${bucket.name} was gone (NATS lost its storage, or it was deleted): recreated`)
      return
    }
    // Recreated by someone else (another relay, an operator's tool) since this relay last looked: its
    // stream has another creation time, even when its revisions have counted past ours again meanwhile.
    const seen = this.#created.get(bucket.name)
    const follower = bucket.follower
    const recreated = seen !== undefined && seen !== created
    // Revisions below what the watch saw, from the stream this relay knows (the same creation time): a
    // cluster answering from a replica behind, for seconds after a node came back; no reset (a recreated
    // bucket has another creation time, and one lost with the server's volume is gone or recreated).
    const wentBack = follower !== undefined && lastSeq < seenBefore && seen === undefined
    if (recreated || wentBack) {
      // On a cluster one answer is not proof: a replica that lags or a leader being elected answers
      // with an older state. A reset is acted on only when later readings, a while apart, agree.
      if (!(await this.#confirmed(bucket, seen, seenBefore))) return
      this.#created.set(bucket.name, created)
      await this.#reset(
        bucket,
        'revisions went back',
        recreated
          ? `bucket ${bucket.name} was recreated (its revisions start over${follower ? `: ${lastSeq} now, ${follower.last} seen before` : ''})`
          : `bucket ${bucket.name} counts from ${lastSeq} again, below revision ${seenBefore} this relay saw (recreated elsewhere)`,
      )
      return
    }
    this.#created.set(bucket.name, created)
    if (follower?.ended) await follower.restart().catch(() => {})
  }

  /**
   * Whether a suspected reset holds: read again `CONFIRM_READINGS` times, `CONFIRM_DELAY_MS` apart, and
   * every reading still shows another creation time or revisions below what the watch saw. A reading
   * that fails (NATS away) confirms nothing: the next round looks again.
   */
  async #confirmed(bucket: GuardedBucket, seenCreated: string | undefined, seenBefore: number): Promise<boolean> {
    for (let i = 0; i < CONFIRM_READINGS; i++) {
      await new Promise((resolve) => setTimeout(resolve, this.confirmDelayMs))
      let info: { created: string; state: { last_seq: number } }
      try {
        info = (await bucket.kv.status()).streamInfo
      } catch {
        return false
      }
      const recreated = seenCreated !== undefined && info.created !== seenCreated
      const wentBack = seenCreated === undefined && bucket.follower !== undefined && info.state.last_seq < Math.max(seenBefore, bucket.follower.last)
      if (!recreated && !wentBack) return false
    }
    return true
  }

  /** Whether a bucket NATS said was not found is still not found at every later reading. */
  async #goneStill(bucket: GuardedBucket): Promise<boolean> {
    for (let i = 0; i < CONFIRM_READINGS; i++) {
      await new Promise((resolve) => setTimeout(resolve, this.confirmDelayMs))
      try {
        await bucket.kv.status()
        return false
      } catch (error) {
        if (!/not found/i.test((error as Error)?.message ?? '')) return false
      }
    }
    return true
  }

  async #reset(bucket: GuardedBucket, cause: ResetCause, detail: string): Promise<void> {
    if (bucket.repair) this.#owed.add(bucket.name)
    await this.reset(bucket.name, cause, detail)
    await bucket.follower?.fromStart().catch(() => {})
  }
}
