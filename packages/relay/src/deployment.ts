import type { KV } from '@nats-io/kv'
import { DEFAULT_PARTITIONS, partitionOf } from './partitions.js'
import { RelayError } from './RelayError.js'
import { LEASES_BUCKET } from './relayStorage.js'

/**
 * The storage layout this version reads and writes: 3 = accounts keyed under their partition
 * (`p<n>.<key>`), partition leases. 2 = partition leases over unpartitioned account keys, 1 = a
 * lease per account: both are moved to 3 by `solver-relay migrate`.
 */
export const LAYOUT = 3

/** What a deployment fixed for its life, stored once in the leases bucket (key `config`). */
export interface Deployment {
  layout: number
  partitions: number
}

const PARTITIONED = /^p(\d+)\.(.+)$/

/**
 * The key an account is stored under in the accounts bucket: its partition, a dot, its key. A relay
 * reads only the partitions it holds (`p<n>.>`) and keeps nothing of the others' entries its watch
 * delivers, so an account it does not own costs it no memory (one watch delivery per change).
 *
 * @example
 * storedKey('42161.beta.0xabc0000000000000000000000000000000000001', 1_024) // 'p417.42161.beta.0xabc…0001'
 */
export function storedKey(key: string, partitions: number): string {
  return `p${partitionOf(key, partitions)}.${key}`
}

/** The account key of a stored key, and its partition; undefined for a key of an older layout. */
export function parseStoredKey(stored: string): { partition: number; key: string } | undefined {
  const match = PARTITIONED.exec(stored)
  return match ? { partition: Number(match[1]), key: match[2]! } : undefined
}

/** The deployment's config, or undefined when none was written yet. */
export async function readDeployment(leases: KV): Promise<Deployment | undefined> {
  const entry = await leases.get('config')
  if (entry?.operation !== 'PUT') return undefined
  let value: { layout?: unknown; partitions?: unknown }
  try {
    value = entry.json()
  } catch {
    value = {}
  }
  const partitions = Number(value.partitions)
  if (!Number.isInteger(partitions) || partitions < 1) {
    // Deleting it would let the next relay write a fresh config, perhaps with another partition count than the running relays use.
    throw new RelayError(
      'LAYOUT',
      `The deployment's config in ${LEASES_BUCKET} (key "config") is not readable; run "solver-relay repair-config --nats URL": it rewrites it with the partition count the stored account keys agree with (running relays go on meanwhile). Do not delete the key.`,
    )
  }
  return { layout: Number(value.layout ?? 1), partitions }
}

/**
 * The partition counts the live relays announce in their heartbeats (relays before the announcement say none).
 *
 * @example
 * const counts = await liveCounts(leasesKv) // Set { 1024 }
 */
export async function liveCounts(leases: KV): Promise<Set<number>> {
  const counts = new Set<number>()
  const now = Date.now()
  for await (const key of await leases.keys('instances.>')) {
    const entry = await leases.get(key)
    if (entry?.operation !== 'PUT') continue
    try {
      const beat = entry.json<{ expires?: unknown; partitions?: unknown }>()
      if (Number(beat.expires) > now && Number.isInteger(beat.partitions) && (beat.partitions as number) > 0) counts.add(beat.partitions as number)
    } catch {
      // not a heartbeat: nothing to say
    }
  }
  return counts
}

/** Whether the accounts bucket holds keys of an older layout (unpartitioned); stops at the first. */
async function hasOldKeys(accounts: KV): Promise<boolean> {
  for await (const key of await accounts.keys()) if (parseStoredKey(key) === undefined) return true
  return false
}

/**
 * The deployment this relay (or command) works in: the stored config, or a new one (layout 3, the
 * partitions asked or 1,024) for a fresh deployment. Data of an older layout is refused with what to
 * run (`LAYOUT`): the relays must be drained and `solver-relay migrate` run first.
 */
export async function openDeployment(leases: KV, accounts: KV, asked: number | undefined, warn: (message: string) => void): Promise<Deployment> {
  if (asked !== undefined && (!Number.isInteger(asked) || asked < 1 || asked > 65_536)) {
    throw new RelayError('INVALID_PARAMETERS', `partitions must be an integer from 1 to 65,536, got ${String(asked)}`)
  }
  let stored = await readDeployment(leases)
  if (stored === undefined) {
    if (await hasOldKeys(accounts)) throw migrateFirst('accounts are stored by an older relay (unpartitioned keys)')
    // No config, but relays running (NATS lost it, a bucket recreated): theirs is the deployment's count,
    // never a default that would store accounts where no relay looks.
    const [running] = await liveCounts(leases)
    if (running !== undefined && asked !== undefined && asked !== running) warn(`partitions ${asked} asked, but the live relays run with ${running}: using ${running}`)
    const fresh: Deployment = { layout: LAYOUT, partitions: running ?? asked ?? DEFAULT_PARTITIONS }
    try {
      await leases.create('config', JSON.stringify(fresh))
      return fresh
    } catch {
      // Someone wrote it first: theirs is the deployment's.
      stored = await readDeployment(leases)
      if (stored === undefined) throw new RelayError('LAYOUT', `The deployment's config in ${LEASES_BUCKET} could not be written or read; check the NATS account's permissions.`)
    }
  }
  if (stored.layout !== LAYOUT) throw migrateFirst(`this deployment is of layout ${stored.layout}`)
  if (asked !== undefined && asked !== stored.partitions) warn(`partitions ${asked} asked, but this deployment has ${stored.partitions} (fixed for its life): using ${stored.partitions}`)
  return stored
}

function migrateFirst(why: string): RelayError {
  return new RelayError(
    'LAYOUT',
    `${why}; this relay keys accounts under their partition (layout ${LAYOUT}). Drain the old relays (SIGTERM), then run "solver-relay migrate --nats URL" once, then start the new ones.`,
  )
}
