import type { KV } from '@nats-io/kv'
import { Kvm } from '@nats-io/kv'
import { isPlausiblePosition } from '@solver-notifications/core/internal'
import { parseAccountKey } from './accountKeys.js'
import { openDeployment, parseStoredKey, storedKey } from './deployment.js'
import { RelayError } from './RelayError.js'
import { type NatsTarget, openNats } from './natsConnection.js'
import { ACCOUNTS_BUCKET, LEASES_BUCKET } from './relayStorage.js'

/**
 * Runs `job` on the accounts bucket with the deployment's partition count (keys are stored under
 * their partition), over a connection of the caller's or one opened (and closed) here.
 */
async function withAccounts<T>(nats: NatsTarget, job: (kv: KV, partitions: number) => Promise<T>): Promise<T> {
  const { nc, owned } = await openNats(nats, 'solver-relay accounts')
  try {
    const kvm = new Kvm(nc)
    const [accounts, leases] = await Promise.all([kvm.create(ACCOUNTS_BUCKET, { history: 1 }), kvm.create(LEASES_BUCKET, { history: 1 })])
    const { partitions } = await openDeployment(leases, accounts, undefined, () => {})
    return await job(accounts, partitions)
  } finally {
    if (owned) await nc.close()
  }
}

/**
 * Starts watching accounts: puts their keys (`<chainId>.<solverId>.<lowercase account>`) into the
 * accounts bucket (stored under their partition, `p<n>.<key>`, so a relay reads only its own), with optional per-account options (`{ since }`: relay history from there the first
 * time). Every key is checked first: one malformed key and nothing is written.
 *
 * @example
 * await addAccounts({ servers: 'nats://127.0.0.1:4222' }, ['42161.beta.0xabc0000000000000000000000000000000000001'])
 */
export async function addAccounts(nats: NatsTarget, keys: readonly string[], options: { since?: number } = {}): Promise<void> {
  for (const key of keys) parseAccountKey(key)
  if (options.since !== undefined && !isPlausiblePosition(options.since)) {
    throw new RelayError('INVALID_PARAMETERS', `since must be unix seconds (0 for the start of history, or a time from 2001 to a day ahead), got ${String(options.since)}; milliseconds? divide by 1000`)
  }
  await withAccounts(nats, async (kv, partitions) => {
    for (const key of keys) await kv.put(storedKey(key, partitions), JSON.stringify(options.since === undefined ? {} : { since: options.since }))
  })
}

/**
 * Stops watching accounts: deletes their keys; whichever relay owns one closes its socket.
 *
 * @example
 * await removeAccounts({ servers: 'nats://127.0.0.1:4222' }, ['42161.beta.0xabc0000000000000000000000000000000000001'])
 */
export async function removeAccounts(nats: NatsTarget, keys: readonly string[]): Promise<void> {
  for (const key of keys) parseAccountKey(key)
  await withAccounts(nats, async (kv, partitions) => {
    for (const key of keys) await kv.delete(storedKey(key, partitions))
  })
}

/**
 * The watched account keys, sorted.
 *
 * @example
 * console.log(await listAccounts({ servers: 'nats://127.0.0.1:4222' }))
 */
export async function listAccounts(nats: NatsTarget): Promise<string[]> {
  return withAccounts(nats, async (kv) => {
    const keys: string[] = []
    for await (const stored of await kv.keys()) {
      const parsed = parseStoredKey(stored)
      if (parsed) keys.push(parsed.key)
    }
    return keys.sort()
  })
}
