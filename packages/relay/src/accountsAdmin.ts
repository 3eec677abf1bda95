import { Kvm } from '@nats-io/kv'
import { isPlausiblePosition } from '@solver-notifications/core'
import { parseAccountKey } from './accountKeys.js'
import { RelayError } from './RelayError.js'
import { type NatsTarget, openNats } from './natsConnection.js'
import { ACCOUNTS_BUCKET } from './relayStorage.js'

/** Runs `job` on the accounts bucket, over a connection of the caller's or one opened (and closed) here. */
async function withAccounts<T>(nats: NatsTarget, job: (kv: Awaited<ReturnType<Kvm['create']>>) => Promise<T>): Promise<T> {
  const { nc, owned } = await openNats(nats, 'solver-relay accounts')
  try {
    return await job(await new Kvm(nc).create(ACCOUNTS_BUCKET, { history: 1 }))
  } finally {
    if (owned) await nc.close()
  }
}

/**
 * Starts watching accounts: puts their keys (`<chainId>.<solverId>.<lowercase account>`) into the
 * accounts bucket, with optional per-account options (`{ since }`: relay history from there the first
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
  await withAccounts(nats, async (kv) => {
    for (const key of keys) await kv.put(key, JSON.stringify(options.since === undefined ? {} : { since: options.since }))
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
  await withAccounts(nats, async (kv) => {
    for (const key of keys) await kv.delete(key)
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
    for await (const key of await kv.keys()) keys.push(key)
    return keys.sort()
  })
}
