import type { KV, KvEntry } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/nats-core'
import {
  type NotificationsClient,
  type NotificationsClientOptions,
  type NotificationsConfig,
  type NotificationsConfigInput,
  createConfig,
  createNotificationsClient,
  isPlausiblePosition,
  isServiceError,
} from '@solver-notifications/core'
import { type WatchedAccount, parseAccountKey } from './accountKeys.js'
import { AccountRelay } from './AccountRelay.js'
import { type NatsTarget, openNats } from './natsConnection.js'
import { RelayError } from './RelayError.js'
import { RelayCounters, type RelayStats } from './RelayStats.js'
import { checkSubjectPrefix, ensureStream, openStorage } from './relayStorage.js'
import { LeaseTable } from './LeaseTable.js'
import { Membership } from './Membership.js'
import { assign } from './rendezvous.js'
import { WorkerPool } from './WorkerPool.js'

/**
 * Options of {@link startRelay}.
 *
 * @example
 * const options: RelayOptions = { config, nats: { servers: 'nats://127.0.0.1:4222' }, maxAccounts: 5_000 }
 */
export interface RelayOptions {
  /** the `createConfig` input (or a config it made) naming the solvers the accounts are on */
  config: NotificationsConfigInput | NotificationsConfig
  nats: NatsTarget
  /** unique per running relay (default: host-pid-random) */
  instanceId?: string | undefined
  /** accounts this relay holds at most (default: no limit) */
  maxAccounts?: number | undefined
  /** how long a lease outlives its last renewal: a dead relay's accounts move after this (15,000) */
  leaseTtlMs?: number | undefined
  /** the JetStream stream (`SOLVER_NOTIFICATIONS`) */
  stream?: string | undefined
  /** subjects are `<subjectPrefix>.<chainId>.<solverId>.<lowercase account>` (`solver.notifications`) */
  subjectPrefix?: string | undefined
  /** lines worth a log (takeovers, failures); silent by default */
  log?: ((message: string) => void) | undefined
  /** passed to the notifications client (e.g. a `WebSocket` implementation, `reconnect`) */
  client?: Omit<Partial<NotificationsClientOptions>, 'config'> | undefined
}

/**
 * A running relay.
 *
 * @example
 * const relay = await startRelay(options); console.log(relay.owned().length); await relay.close()
 */
export interface Relay {
  /** the account keys it holds and watches */
  owned(): string[]
  stats(): RelayStats
  /** hands its accounts over (checkpoints written, leases released) and disconnects */
  close(): Promise<void>
}

const ID = /^[-_=a-zA-Z0-9]+$/
/** Lease operations run this many at a time, so 5,000 accounts do not open 5,000 requests at once. */
const CONCURRENCY = 64

/**
 * Starts a relay: it joins the others on the same NATS, takes the accounts rendezvous hashing gives it
 * (leases in `solver_relay_leases`, by revision), watches each from its checkpoint, and publishes every
 * notification once into JetStream. A dead relay's leases expire after `leaseTtlMs` and the others take
 * its accounts over from their checkpoints. Bad input (config, NATS, stream) throws a `RelayError`
 * before anything starts.
 *
 * @example
 * const relay = await startRelay({ config: JSON.parse(readFileSync('solvers.json', 'utf8')), nats: { servers: 'nats://127.0.0.1:4222' } })
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const leaseTtlMs = options.leaseTtlMs ?? 15_000
  if (typeof leaseTtlMs !== 'number' || !Number.isFinite(leaseTtlMs) || leaseTtlMs < 1_000) {
    throw new RelayError('INVALID_PARAMETERS', `leaseTtlMs must be at least 1,000 ms, got ${String(leaseTtlMs)}`)
  }
  const maxAccounts = options.maxAccounts ?? Number.MAX_SAFE_INTEGER
  if (!Number.isInteger(maxAccounts) || maxAccounts <= 0) throw new RelayError('INVALID_PARAMETERS', `maxAccounts must be a positive integer, got ${String(maxAccounts)}`)
  const id = options.instanceId ?? `relay-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  if (typeof id !== 'string' || !ID.test(id)) throw new RelayError('INVALID_PARAMETERS', `instanceId must be letters, digits, - _ or =, got ${JSON.stringify(id)}`)
  const prefix = checkSubjectPrefix(options.subjectPrefix ?? 'solver.notifications')
  const streamName = options.stream ?? 'SOLVER_NOTIFICATIONS'
  const config = resolveConfig(options.config)
  const log = options.log ?? (() => {})

  const { nc, owned: ownsNc } = await openNats(options.nats, `solver-relay ${id}`)
  let storage: Awaited<ReturnType<typeof openStorage>>
  try {
    storage = await openStorage(nc)
    await ensureStream(storage.jsm, streamName, prefix)
  } catch (error) {
    // Nothing half-started: the connection this call opened is closed again.
    if (ownsNc) await nc.close()
    throw error
  }
  const { js, jsm, accounts: accountsKv, leases: leasesKv, checkpoints } = storage
  const membership = new Membership(leasesKv, id, maxAccounts, leaseTtlMs)
  const leases = new LeaseTable(leasesKv, id, leaseTtlMs)
  try {
    await membership.refuseTwin(Math.max(200, Math.floor(leaseTtlMs / 3)))
  } catch (error) {
    if (ownsNc) await nc.close()
    throw error
  }
  /** One check at a time, shared by every publish that failed meanwhile: was the stream there? */
  let recovering: Promise<boolean> | undefined
  const streamLost = (): Promise<boolean> => {
    recovering ??= ensureStream(jsm, streamName, prefix)
      .then((result) => {
        if (result === 'created') log(`stream ${streamName} was missing (deleted?); re-created with subjects ${prefix}.> and the same settings`)
        return result === 'created'
      })
      .catch((error: unknown) => {
        log(`stream ${streamName} could not be checked: ${(error as Error)?.message ?? String(error)}`)
        return false
      })
      .finally(() => {
        recovering = undefined
      })
    return recovering
  }
  const client: NotificationsClient = createNotificationsClient({ lingerMs: 0, ...options.client, config })
  const counters = new RelayCounters()
  const wanted = new Map<string, { watched: WatchedAccount; since: number }>()
  const held = new Map<string, { revision: number; relay: AccountRelay | undefined }>()
  let closed = false
  const workers = new WorkerPool(CONCURRENCY, () => closed)

  const onAccount = (e: KvEntry) => {
    if (e.operation !== 'PUT') {
      wanted.delete(e.key)
      return
    }
    let watched: WatchedAccount
    try {
      watched = parseAccountKey(e.key)
    } catch (error) {
      log((error as Error).message)
      return
    }
    let since = Math.floor(e.created.getTime() / 1000)
    try {
      const value = e.length > 0 ? e.json<{ since?: unknown }>() : {}
      if (isPlausiblePosition(value?.since)) since = value.since
      else if (value?.since !== undefined) {
        // A position in milliseconds (or days ahead) would make the backfill wait for a future that never comes.
        log(`account ${e.key}: since ${JSON.stringify(value.since)} is not unix seconds (milliseconds?); relaying from when the key was put (${since})`)
      }
    } catch {
      log(`account ${e.key}: value is not JSON; using {}`)
    }
    wanted.set(e.key, { watched, since })
  }
  // One bucket, two tables: heartbeats (`instances.<id>`) and leases (`leases.<key>`).
  const onLease = (e: KvEntry) => {
    const [kind, ...rest] = e.key.split('.')
    const key = rest.join('.')
    if (kind === 'instances') membership.onEntry(key, e)
    else if (kind === 'leases') leases.onEntry(key, e)
  }
  const watches = [await follow(accountsKv, onAccount), await follow(leasesKv, onLease)]
  // A restarted server may have lost the watchers' consumers: follow again on every reconnect.
  void (async () => {
    for await (const s of nc.status()) {
      if (closed) break
      if (s.type === 'reconnect') for (const w of watches) await w.restart().catch((e: unknown) => log(`watch restart failed: ${String(e)}`))
    }
  })()

  const acquire = async (key: string) => {
    const entry = wanted.get(key)
    if (!entry) return
    const lease = await leases.take(key)
    if (!lease || closed) return
    const slot = { revision: lease.revision, relay: undefined as AccountRelay | undefined }
    held.set(key, slot)
    if (lease.from) log(`took over ${key} from ${lease.from}`)
    try {
      slot.relay = await AccountRelay.open(entry.watched, { client, js, checkpoints, subject: `${prefix}.${key}`, counters, log, streamLost }, entry.since)
    } catch (error) {
      counters.errors++
      log(`${key}: cannot watch: ${isServiceError(error) ? `${error.code}: ${error.message}` : String(error)}`)
      held.delete(key)
      await leases.giveBack(key, lease.revision)
    }
  }

  const release = async (key: string) => {
    const slot = held.get(key)
    if (!slot) return
    held.delete(key)
    await slot.relay?.stop()
    // Given back only if still ours: the next owner resumes from the checkpoint just written.
    await leases.giveBack(key, slot.revision)
  }

  const renew = async (key: string) => {
    const slot = held.get(key)
    if (!slot) return
    const revision = await leases.renew(key, slot.revision)
    if (revision !== undefined) {
      slot.revision = revision
      return
    }
    // Lost (we were away longer than the lease): another relay owns it now.
    held.delete(key)
    log(`lost the lease of ${key}`)
    await slot.relay?.stop(0)
  }

  let ticking: Promise<void> | undefined
  const tick = async () => {
    await membership.beat()
    const plan = assign([...wanted.keys()], membership.live())
    const toRelease = [...held.keys()].filter((key) => plan.get(key) !== id)
    const toRenew = [...held.keys()].filter((key) => plan.get(key) === id)
    const toAcquire = [...plan].filter(([key, owner]) => owner === id && !held.has(key)).map(([key]) => key)
    await workers.run(toRelease, release)
    await workers.run(toRenew, renew)
    await workers.run(toAcquire, acquire)
  }
  const timer = setInterval(() => {
    if (closed || ticking) return
    ticking = tick()
      .catch((error: unknown) => log(`tick failed: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        ticking = undefined
      })
  }, Math.max(200, Math.floor(leaseTtlMs / 3)))
  ticking = tick()
    .catch((error: unknown) => log(`tick failed: ${(error as Error)?.message ?? String(error)}`))
    .finally(() => {
      ticking = undefined
    })

  return {
    owned: () => [...held.keys()].sort(),
    stats: () => {
      let pending = 0
      for (const slot of held.values()) pending += slot.relay?.inFlight ?? 0
      const lagMs = counters.maxLag
      counters.maxLag = 0
      return {
        instanceId: id,
        instances: membership.live().length,
        owned: held.size,
        accounts: wanted.size,
        received: counters.received,
        published: counters.published,
        duplicates: counters.duplicates,
        skipped: counters.skipped,
        retries: counters.retries,
        checkpoints: counters.checkpoints,
        errors: counters.errors,
        pending,
        lagMs,
      }
    },
    close: async () => {
      if (closed) return
      clearInterval(timer)
      await ticking
      closed = true
      await Promise.all([...held.keys()].map(release))
      await membership.leave()
      for (const w of watches) w.stop()
      client.close()
      if (ownsNc) await nc.drain()
    },
  }
}

function resolveConfig(config: RelayOptions['config']): NotificationsConfig {
  if (config && typeof (config as NotificationsConfig).getSolver === 'function') return config as NotificationsConfig
  try {
    return createConfig(config as NotificationsConfigInput)
  } catch (cause) {
    throw new RelayError('INVALID_CONFIG', `The solvers config is invalid: ${(cause as Error)?.message ?? String(cause)}`, { cause })
  }
}

/** Feeds every entry of a bucket (current values, then changes) to `onEntry`, and can start over. */
async function follow(kv: KV, onEntry: (e: KvEntry) => void): Promise<{ restart(): Promise<void>; stop(): void }> {
  let iterator: Awaited<ReturnType<KV['watch']>> | undefined
  const start = async () => {
    iterator?.stop()
    const it = await kv.watch()
    iterator = it
    void (async () => {
      for await (const e of it) onEntry(e)
    })()
  }
  await start()
  return { restart: start, stop: () => iterator?.stop() }
}

export type { NatsConnection }
