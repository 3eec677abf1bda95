import { RelayError } from './RelayError.js'
import { LAYOUT, parseStoredKey, readDeployment, storedKey } from './deployment.js'
import { type NatsTarget, openNats } from './natsConnection.js'
import { DEFAULT_PARTITIONS, partitionOf } from './partitions.js'
import { checkpointTextOf, recordKey, recordText } from './PartitionCheckpoint.js'
import { readBucket } from './readBucket.js'
import { ACCOUNTS_BUCKET, CHECKPOINTS_BUCKET, openStorage } from './relayStorage.js'

/**
 * Moves a deployment of an older layout (accounts under their bare keys; leases per account or per
 * partition) to the current one: every account key re-stored under its partition (`p<n>.<key>`, the
 * value kept), every account's checkpoint moved into its partition's record (`p<n>` in the checkpoints
 * bucket), the deployment's config written. Refuses while any
 * relay is alive (drain them first: two layouts must never run side by side). Safe to run again.
 *
 * @example
 * const { moved, partitions } = await migrateDeployment({ servers: 'nats://127.0.0.1:4222' })
 */
export async function migrateDeployment(nats: NatsTarget, options: { partitions?: number | undefined } = {}): Promise<{ moved: number; partitions: number; layout: number }> {
  const { nc, owned } = await openNats(nats, 'solver-relay migrate')
  try {
    const { accounts, leases, checkpoints, js, jsm } = await openStorage(nc)
    const alive: string[] = []
    for await (const key of await leases.keys('instances.>')) {
      const entry = await leases.get(key)
      if (entry?.operation !== 'PUT') continue
      try {
        if (Number(entry.json<{ expires?: unknown }>().expires) > Date.now()) alive.push(key.slice('instances.'.length))
      } catch {
        // not a heartbeat: ignored
      }
    }
    if (alive.length > 0) {
      throw new RelayError('LAYOUT', `Relays are running (${alive.join(', ')}): drain them first (SIGTERM, and wait for them to exit), then run migrate again.`)
    }
    const stored = await readDeployment(leases)
    const partitions = stored?.partitions ?? options.partitions ?? DEFAULT_PARTITIONS
    const old: string[] = []
    /** every account in the bucket, whichever layout stored it */
    const present = new Set<string>()
    const accountKeys: string[] = []
    // Read by count, not by nats.js's keys() (it can end early on a busy server).
    await readBucket(js, jsm, ACCOUNTS_BUCKET, '>', (e) => {
      if (e.operation === 'PUT') accountKeys.push(e.key)
    })
    for (const key of accountKeys) {
      const parsed = parseStoredKey(key)
      if (parsed === undefined) old.push(key)
      present.add(parsed?.key ?? key)
    }
    for (const key of old) {
      const entry = await accounts.get(key)
      if (entry?.operation === 'PUT') await accounts.put(storedKey(key, partitions), entry.value)
      // Purged from the bucket's stream, not deleted: no delete marker stays behind to be counted.
      await jsm.streams.purge(`KV_${ACCOUNTS_BUCKET}`, { filter: `$KV.${ACCOUNTS_BUCKET}.${key}` })
    }
    // Checkpoints of one key per account become one record per partition (a record already there wins: it is newer).
    const records = new Map<number, Map<string, string>>()
    const oldCheckpoints: string[] = []
    await readBucket(js, jsm, CHECKPOINTS_BUCKET, '>', (e) => {
      if (e.operation === 'PUT' && !/^p\d+$/.test(e.key)) oldCheckpoints.push(e.key)
    })
    for (const key of oldCheckpoints) {
      // A removed account's checkpoint stayed behind in the older layouts: it is not carried over.
      if (!present.has(key)) continue
      const entry = await checkpoints.get(key)
      let text: string | undefined
      try {
        text = entry?.operation === 'PUT' ? checkpointTextOf(entry.json()) : undefined
      } catch {
        text = undefined // not JSON: the account resumes from its bucket entry
      }
      if (text === undefined) continue
      const partition = partitionOf(key, partitions)
      let positions = records.get(partition)
      if (!positions) records.set(partition, (positions = new Map()))
      positions.set(key, text)
    }
    for (const [partition, positions] of records) {
      const current = await checkpoints.get(recordKey(partition))
      if (current?.operation === 'PUT') {
        let kept: Record<string, unknown> = {}
        try {
          kept = (JSON.parse(current.string()) as { accounts?: Record<string, unknown> }).accounts ?? {}
        } catch {
          // not JSON: the old checkpoints are all there is
        }
        for (const [key, value] of Object.entries(kept)) {
          const text = checkpointTextOf(value)
          if (text !== undefined) positions.set(key, text)
        }
      }
      await checkpoints.put(recordKey(partition), recordText('migrate', 'migrate', positions))
    }
    for (const key of oldCheckpoints) await jsm.streams.purge(`KV_${CHECKPOINTS_BUCKET}`, { filter: `$KV.${CHECKPOINTS_BUCKET}.${key}` })
    await leases.put('config', JSON.stringify({ layout: LAYOUT, partitions }))
    // Leases of the per-account layout would only expire: gone at once.
    for await (const key of await leases.keys('leases.>')) await leases.delete(key)
    return { moved: old.length, partitions, layout: LAYOUT }
  } finally {
    if (owned) await nc.close()
  }
}
