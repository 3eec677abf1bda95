import type { KV, KvEntry } from '@nats-io/kv'

/** A bucket being followed: restarted after a NATS reconnect, stopped at the end. */
export interface BucketFollower {
  restart(): Promise<void>
  stop(): void
}

/**
 * Watches a bucket: every entry first, then each change. Restarted after a NATS reconnect, it resumes after
 * the last revision it delivered, so only what changed meanwhile comes (a restart from zero replayed the whole
 * bucket to every relay on every reconnect: a million entries at 100,000 accounts on 10 relays).
 *
 * @example
 * const follower = await followBucket(kv, (e) => console.log(e.key, e.operation))
 * await follower.restart() // after a reconnect: only what changed
 */
export async function followBucket(kv: KV, onEntry: (e: KvEntry) => void): Promise<BucketFollower> {
  let iterator: Awaited<ReturnType<KV['watch']>> | undefined
  let last = 0
  const start = async () => {
    iterator?.stop()
    const it = await kv.watch(last > 0 ? { resumeFromRevision: last + 1 } : undefined)
    iterator = it
    void (async () => {
      for await (const e of it) {
        if (it !== iterator) break
        last = Math.max(last, e.revision)
        onEntry(e)
      }
    })()
  }
  await start()
  return { restart: start, stop: () => iterator?.stop() }
}
