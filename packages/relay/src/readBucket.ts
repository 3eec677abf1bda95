import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream'
import { nanos } from '@nats-io/nats-core'

/** One current entry of a KV bucket, as a read delivers it (the fields the relay uses of a watch entry). */
export interface BucketEntry {
  key: string
  operation: 'PUT' | 'DEL' | 'PURGE'
  created: Date
  length: number
  json<T>(): T
}

/** A read that receives nothing for this long fails (the caller reads again later). */
const STALL_MS = 30_000

/**
 * Reads every current entry of a KV bucket under a key pattern (`p17.>`, or `>`): the stream's own
 * list of the pattern's subjects first (authoritative), then one ephemeral consumer, and any subject
 * the consumer did not deliver is fetched on its own. Never ends early: nats.js's `kv.history()` and
 * `kv.keys()` end at the first idle heartbeat, and on a loaded nats-server 2.9 a consumer's pending
 * count has come back short (0 for a partition of ~100 keys) — a relay then held partitions with
 * accounts missing. Fails when nothing arrives for 30 s. Returns how many entries it read.
 *
 * @example
 * const n = await readBucket(js, jsm, 'solver_relay_accounts', 'p17.>', (entry) => console.log(entry.key))
 */
export async function readBucket(js: JetStreamClient, jsm: JetStreamManager, bucket: string, pattern: string, onEntry: (entry: BucketEntry) => void): Promise<number> {
  const stream = `KV_${bucket}`
  const prefix = `$KV.${bucket}.`
  const listed = Object.keys((await jsm.streams.info(stream, { subjects_filter: `${prefix}${pattern}` })).state.subjects ?? {})
  const delivered = new Set<string>()
  const deliver = (entry: BucketEntry) => {
    delivered.add(entry.key)
    onEntry(entry)
  }
  const read = await readByConsumer(js, jsm, stream, prefix, pattern, deliver)
  let fetched = 0
  for (const subject of listed) {
    const key = subject.slice(prefix.length)
    if (delivered.has(key)) continue
    const m = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null)
    if (!m) continue // purged meanwhile
    const op = m.header?.get('KV-Operation')
    deliver({ key, operation: op === 'DEL' || op === 'PURGE' ? op : 'PUT', created: m.time, length: m.data.length, json: <T>() => m.json<T>() })
    fetched++
  }
  return read + fetched
}

async function readByConsumer(js: JetStreamClient, jsm: JetStreamManager, stream: string, prefix: string, pattern: string, onEntry: (entry: BucketEntry) => void): Promise<number> {
  const bucket = stream.slice('KV_'.length)
  const info = await jsm.consumers.add(stream, {
    filter_subject: `${prefix}${pattern}`,
    deliver_policy: DeliverPolicy.LastPerSubject,
    ack_policy: AckPolicy.None,
    mem_storage: true,
    // Gone by itself if this process dies mid-read.
    inactive_threshold: nanos(STALL_MS),
  })
  const expected = info.num_pending
  let read = 0
  try {
    if (expected === 0) return 0
    const consumer = await js.consumers.get(stream, info.name)
    const messages = await consumer.consume({ max_messages: Math.min(expected, 1_000) })
    let stalled: ReturnType<typeof setTimeout> | undefined
    const arm = () => {
      clearTimeout(stalled)
      stalled = setTimeout(() => messages.stop(new Error(`reading ${bucket} ${pattern}: nothing for ${STALL_MS / 1000} s after ${read} of ${expected} entries`)), STALL_MS)
    }
    arm()
    try {
      for await (const m of messages) {
        arm()
        const op = m.headers?.get('KV-Operation')
        onEntry({
          key: m.subject.slice(prefix.length),
          operation: op === 'DEL' || op === 'PURGE' ? op : 'PUT',
          created: m.time,
          length: m.data.length,
          json: <T>() => m.json<T>(),
        })
        if (++read >= expected) break
      }
    } finally {
      clearTimeout(stalled)
      messages.stop()
    }
    if (read < expected) throw new Error(`reading ${bucket} ${pattern}: ${read} of ${expected} entries`)
    return read
  } finally {
    await jsm.consumers.delete(stream, info.name).catch(() => {})
  }
}
