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
import { type Member, assign } from './rendezvous.js'

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

interface Lease {
  owner: string
  expires: number
  revision: number
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
  try {
    await refuseTwin(leasesKv, id, Math.max(200, Math.floor(leaseTtlMs / 3)))
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
  const leases = new Map<string, Lease>()
  const members = new Map<string, { maxAccounts: number; expires: number }>()
  const held = new Map<string, { revision: number; relay: AccountRelay | undefined }>()
  const busy = new Set<string>()
  let closed = false

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
  const onLease = (e: KvEntry) => {
    const [kind, ...rest] = e.key.split('.')
    const key = rest.join('.')
    const map = kind === 'instances' ? members : kind === 'leases' ? leases : undefined
    if (!map) return
    if (e.operation !== 'PUT') {
      map.delete(key)
      return
    }
    try {
      const v = e.json<{ owner?: string; expires?: number; maxAccounts?: number }>()
      if (kind === 'instances') members.set(key, { maxAccounts: v.maxAccounts ?? Number.MAX_SAFE_INTEGER, expires: v.expires ?? 0 })
      else leases.set(key, { owner: String(v.owner), expires: v.expires ?? 0, revision: e.revision })
    } catch {
      map.delete(key)
    }
  }
  const watches = [await follow(accountsKv, onAccount), await follow(leasesKv, onLease)]
  // A restarted server may have lost the watchers' consumers: follow again on every reconnect.
  void (async () => {
    for await (const s of nc.status()) {
      if (closed) break
      if (s.type === 'reconnect') for (const w of watches) await w.restart().catch((e: unknown) => log(`watch restart failed: ${String(e)}`))
    }
  })()

  const leaseValue = () => JSON.stringify({ owner: id, expires: Date.now() + leaseTtlMs })

  const acquire = async (key: string) => {
    const entry = wanted.get(key)
    if (!entry) return
    const current = leases.get(key)
    let revision: number
    try {
      if (current && current.owner !== id && current.expires > Date.now()) return
      revision = current ? await leasesKv.update(`leases.${key}`, leaseValue(), current.revision) : await leasesKv.create(`leases.${key}`, leaseValue())
    } catch {
      return // someone else got it first, or our view was stale: the next tick looks again
    }
    if (closed) return
    const slot = { revision, relay: undefined as AccountRelay | undefined }
    held.set(key, slot)
    if (current && current.owner !== id) log(`took over ${key} from ${current.owner}`)
    try {
      slot.relay = await AccountRelay.open(entry.watched, { client, js, checkpoints, subject: `${prefix}.${key}`, counters, log, streamLost }, entry.since)
    } catch (error) {
      counters.errors++
      log(`${key}: cannot watch: ${isServiceError(error) ? `${error.code}: ${error.message}` : String(error)}`)
      held.delete(key)
      await leasesKv.delete(`leases.${key}`, { previousSeq: revision }).catch(() => {})
    }
  }

  const release = async (key: string) => {
    const slot = held.get(key)
    if (!slot) return
    held.delete(key)
    await slot.relay?.stop()
    // Deleted only if still ours: the next owner resumes from the checkpoint just written.
    await leasesKv.delete(`leases.${key}`, { previousSeq: slot.revision }).catch(() => {})
  }

  const renew = async (key: string) => {
    const slot = held.get(key)
    if (!slot) return
    try {
      slot.revision = await leasesKv.update(`leases.${key}`, leaseValue(), slot.revision)
    } catch {
      // Lost (we were away longer than the lease): another relay owns it now.
      held.delete(key)
      log(`lost the lease of ${key}`)
      await slot.relay?.stop(0)
    }
  }

  const run = async (keys: string[], job: (key: string) => Promise<void>) => {
    let next = 0
    const worker = async () => {
      while (next < keys.length && !closed) {
        const key = keys[next++]!
        if (busy.has(key)) continue
        busy.add(key)
        try {
          await job(key)
        } finally {
          busy.delete(key)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, keys.length) }, worker))
  }

  let ticking: Promise<void> | undefined
  const tick = async () => {
    const now = Date.now()
    await leasesKv.put(`instances.${id}`, JSON.stringify({ maxAccounts, expires: now + leaseTtlMs }))
    const live: Member[] = [{ id, maxAccounts }]
    for (const [member, m] of members) if (member !== id && m.expires > now) live.push({ id: member, maxAccounts: m.maxAccounts })
    const plan = assign([...wanted.keys()], live)
    const toRelease = [...held.keys()].filter((key) => plan.get(key) !== id)
    const toRenew = [...held.keys()].filter((key) => plan.get(key) === id)
    const toAcquire = [...plan].filter(([key, owner]) => owner === id && !held.has(key)).map(([key]) => key)
    await run(toRelease, release)
    await run(toRenew, renew)
    await run(toAcquire, acquire)
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
      const now = Date.now()
      let instances = 1
      for (const [member, m] of members) if (member !== id && m.expires > now) instances++
      return {
        instanceId: id,
        instances,
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
      await leasesKv.delete(`instances.${id}`).catch(() => {})
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

/**
 * Refuses to start next to a running relay of the same instance id: two of them would take each
 * other's leases in turn for ever. A fresh heartbeat may also be a crashed predecessor's, so the
 * entry is watched for one heartbeat interval and a half: only a live relay renews it.
 */
async function refuseTwin(leases: KV, id: string, heartbeatMs: number): Promise<void> {
  const first = await leases.get(`instances.${id}`)
  if (first?.operation !== 'PUT') return
  let expires = 0
  try {
    expires = Number(first.json<{ expires?: number }>().expires ?? 0)
  } catch {
    return
  }
  if (!(expires > Date.now())) return
  const deadline = Date.now() + heartbeatMs * 1.5
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, heartbeatMs / 4)))
    const now = await leases.get(`instances.${id}`)
    if (now && now.operation === 'PUT' && now.revision !== first.revision) {
      throw new RelayError(
        'INSTANCE_CONFLICT',
        `Another relay is running with instance id ${JSON.stringify(id)} (its heartbeat is fresh): two would take each other's leases in turn. Give each relay its own --instance-id (or leave it out for a random one).`,
      )
    }
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
