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
}

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

  constructor(
    private readonly buckets: readonly GuardedBucket[],
    /** a bucket was reset: forget what was held of it (called before its watch reads it again) */
    private readonly reset: (bucket: string, cause: ResetCause, detail: string) => Promise<void> | void,
  ) {}

  /** Looks at every bucket once (one look at a time: a reconnect and a round share it). */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined
    })
    return this.#checking
  }

  async #check(): Promise<void> {
    for (const bucket of this.buckets) await this.#look(bucket)
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
      // NATS away (a reconnect runs this again): nothing to conclude. A bucket that is not there any more is recreated.
      if (!/not found/i.test((error as Error)?.message ?? '')) return
      try {
        await new Kvm(bucket.nc).create(bucket.name, { history: 1 })
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
    this.#created.set(bucket.name, created)
    const follower = bucket.follower
    if (seen !== undefined && seen !== created) {
      await this.#reset(bucket, 'revisions went back', `bucket ${bucket.name} was recreated (its revisions start over${follower ? `: ${lastSeq} now, ${follower.last} seen before` : ''})`)
      return
    }
    if (follower && lastSeq < seenBefore) {
      await this.#reset(bucket, 'revisions went back', `bucket ${bucket.name} counts from ${lastSeq} again, below revision ${seenBefore} this relay saw (recreated elsewhere)`)
      return
    }
    if (follower?.ended) await follower.restart().catch(() => {})
  }

  async #reset(bucket: GuardedBucket, cause: ResetCause, detail: string): Promise<void> {
    await this.reset(bucket.name, cause, detail)
    await bucket.follower?.fromStart().catch(() => {})
  }
}
