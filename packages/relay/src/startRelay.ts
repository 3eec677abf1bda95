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
import { JetStreamPublisher } from './JetStreamPublisher.js'
import { type NatsOptions, type NatsTarget, isNatsConnection, openNats } from './natsConnection.js'
import { RelayError } from './RelayError.js'
import type { RelayStats } from './RelayStats.js'
import { RelayMetrics } from './RelayMetrics.js'
import { type RelayLogger, lineLogger, silentLogger } from './relayLogger.js'
import { type Readiness, startOpsServer } from './opsServer.js'
import type { Registry } from 'prom-client'
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
  /** where it logs (pino or anything with its shape): start, accounts taken and handed over, takeovers, NATS, drain; silent by default */
  logger?: RelayLogger | undefined
  /** the same as plain lines, for callers that do not want a logger (`logger` wins) */
  log?: ((message: string) => void) | undefined
  /** serve `/healthz`, `/readyz` and `/metrics` on `host:port` (e.g. `127.0.0.1:9464`; port 0 picks a free one) */
  http?: string | undefined
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
  /** whether it should get traffic: NATS connected, stream and buckets reachable, joined, not draining */
  ready(): Promise<Readiness>
  /** its Prometheus registry (`solver_relay_*` and the process metrics), to serve or merge into yours */
  readonly registry: Registry
  /** where `/healthz`, `/readyz` and `/metrics` are served (`host:port`), with the `http` option */
  readonly httpAddress: string | undefined
  /**
   * Drains: not ready at once, hands every account over (checkpoints written, leases released), leaves,
   * and disconnects. Idempotent: a second call waits for the same drain.
   */
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
  const logger: RelayLogger = options.logger ?? (options.log ? lineLogger(options.log) : silentLogger)

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
  const { jsm, accounts: accountsKv, leases: leasesKv, checkpoints } = storage
  const membership = new Membership(leasesKv, id, maxAccounts, leaseTtlMs)
  const leases = new LeaseTable(leasesKv, id, leaseTtlMs)
  try {
    await membership.refuseTwin(Math.max(200, Math.floor(leaseTtlMs / 3)))
  } catch (error) {
    if (ownsNc) await nc.close()
    throw error
  }
  const publisher = new JetStreamPublisher(nc)
  /** One check at a time, shared by every publish that failed meanwhile: was the stream there? */
  let recovering: Promise<boolean> | undefined
  const streamLost = (): Promise<boolean> => {
    recovering ??= ensureStream(jsm, streamName, prefix)
      .then((result) => {
        if (result === 'created') logger.warn({ stream: streamName }, `stream ${streamName} was missing (deleted?); re-created with subjects ${prefix}.> and the same settings`)
        return result === 'created'
      })
      .catch((error: unknown) => {
        logger.warn({ stream: streamName }, `stream ${streamName} could not be checked: ${(error as Error)?.message ?? String(error)}`)
        return false
      })
      .finally(() => {
        recovering = undefined
      })
    return recovering
  }
  const client: NotificationsClient = createNotificationsClient({ lingerMs: 0, ...options.client, config })
  const wanted = new Map<string, { watched: WatchedAccount; since: number }>()
  const held = new Map<string, { revision: number; relay: AccountRelay | undefined }>()
  let closed = false
  let draining: Promise<void> | undefined
  let natsConnected = true
  let joined = false
  const pending = () => {
    let n = 0
    for (const slot of held.values()) n += slot.relay?.inFlight ?? 0
    return n
  }
  const metrics = new RelayMetrics({ owned: () => held.size, accounts: () => wanted.size, pending, natsConnected: () => natsConnected, client: () => client.stats() })
  const protocolOf = (w: WatchedAccount) => {
    try {
      return config.getSolver({ chainId: w.chainId, solverId: w.solverId }).notifications.protocol
    } catch {
      return 'unknown'
    }
  }
  const workers = new WorkerPool(CONCURRENCY, () => closed || draining !== undefined)

  const onAccount = (e: KvEntry) => {
    if (e.operation !== 'PUT') {
      wanted.delete(e.key)
      return
    }
    let watched: WatchedAccount
    try {
      watched = parseAccountKey(e.key)
    } catch (error) {
      logger.warn({ key: e.key }, (error as Error).message)
      return
    }
    let since = Math.floor(e.created.getTime() / 1000)
    try {
      const value = e.length > 0 ? e.json<{ since?: unknown }>() : {}
      if (isPlausiblePosition(value?.since)) since = value.since
      else if (value?.since !== undefined) {
        // A position in milliseconds (or days ahead) would make the backfill wait for a future that never comes.
        logger.warn({ account: e.key, since: value.since }, `account ${e.key}: since ${JSON.stringify(value.since)} is not unix seconds (milliseconds?); relaying from when the key was put (${since})`)
      }
    } catch {
      logger.warn({ account: e.key }, `account ${e.key}: value is not JSON; using {}`)
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
      if (s.type === 'disconnect') {
        natsConnected = false
        logger.warn({ server: s.server }, 'NATS disconnected; reconnecting (publishes are retried, checkpoints stay behind them)')
      } else if (s.type === 'reconnect') {
        natsConnected = true
        logger.info({ server: s.server }, 'NATS reconnected')
        for (const w of watches) await w.restart().catch((e: unknown) => logger.warn({}, `watch restart failed: ${String(e)}`))
      }
    }
  })()

  /** What one tick did, logged as counts (5,000 accounts are one line, not 5,000). */
  let moves = { taken: 0, handedOver: 0, lost: 0, from: new Map<string, number>() }
  /** Takes the lease of `key` (a KV request): the account is this relay's from here on. */
  const takeLease = async (key: string, taken: string[]) => {
    if (!wanted.has(key)) return
    const lease = await leases.take(key)
    if (!lease || closed) return
    held.set(key, { revision: lease.revision, relay: undefined })
    taken.push(key)
    if (lease.from) {
      metrics.takeovers++
      moves.from.set(lease.from, (moves.from.get(lease.from) ?? 0) + 1)
      logger.debug({ account: key, from: lease.from }, `took over ${key} from ${lease.from}`)
    }
  }

  /** Opens a held account from its checkpoint; waits for its first backfill, so history requests stay bounded. */
  const openAccount = async (key: string) => {
    const slot = held.get(key)
    const entry = wanted.get(key)
    if (!slot || slot.relay || !entry || closed || draining !== undefined) return
    try {
      slot.relay = await AccountRelay.open(entry.watched, { client, publisher, checkpoints, subject: `${prefix}.${key}`, metrics, logger, protocolOf, streamLost }, entry.since)
      moves.taken++
    } catch (error) {
      metrics.error('WATCH')
      logger.error({ account: key }, `${key}: cannot watch: ${isServiceError(error) ? `${error.code}: ${error.message}` : String(error)}`)
      if (held.get(key) === slot) held.delete(key)
      await leases.giveBack(key, slot.revision)
    }
  }

  /**
   * Every lease first (quick KV requests), then the accounts opened: a dead relay's thousands of
   * accounts are owned within a round, while their backfills catch up 64 at a time behind checkpoints.
   */
  const acquire = async (keys: string[]) => {
    const taken: string[] = []
    await workers.run(keys, (key) => takeLease(key, taken))
    await workers.run(taken, openAccount)
  }

  const release = async (key: string) => {
    const slot = held.get(key)
    if (!slot) return
    held.delete(key)
    await slot.relay?.stop()
    // Given back only if still ours: the next owner resumes from the checkpoint just written.
    await leases.giveBack(key, slot.revision)
    metrics.handoffs++
    moves.handedOver++
  }

  const renew = async (key: string) => {
    const slot = held.get(key)
    if (!slot) return
    const revision = await leases.renew(key, slot.revision)
    if (typeof revision === 'number') {
      slot.revision = revision
      return
    }
    // NATS slow or away: still held as far as anyone knows; the lease outlives two missed renewals.
    if (revision === 'unknown') return
    // Lost (we were away longer than the lease): another relay owns it now.
    held.delete(key)
    metrics.error('LEASE_LOST')
    moves.lost++
    logger.warn({ account: key }, `lost the lease of ${key}`)
    await slot.relay?.stop(0)
  }

  let ticking: Promise<void> | undefined
  const tick = async () => {
    await membership.beat()
    joined = true
    const plan = assign([...wanted.keys()], membership.live())
    const toRelease = [...held.keys()].filter((key) => plan.get(key) !== id)
    const toRenew = [...held.keys()].filter((key) => plan.get(key) === id)
    const toAcquire = [...plan].filter(([key, owner]) => owner === id && !held.has(key)).map(([key]) => key)
    await workers.run(toRelease, release)
    // Side by side: thousands of renewals must not hold up a takeover, nor a takeover the renewals.
    await Promise.all([workers.run(toRenew, renew), acquire(toAcquire)])
    reportMoves()
    // Accounts still leased by a relay that stopped beating: look again the moment those leases run out.
    let next = membership.nextExpiry()
    for (const key of toAcquire) if (!held.has(key)) next = Math.min(next ?? Number.POSITIVE_INFINITY, leases.expiryOf(key) ?? Number.POSITIVE_INFINITY)
    nextExpiry = next
  }
  let nextExpiry: number | undefined
  const reportMoves = () => {
    const { taken, handedOver, lost, from } = moves
    moves = { taken: 0, handedOver: 0, lost: 0, from: new Map() }
    if (from.size > 0) logger.info({ accounts: [...from.values()].reduce((a, b) => a + b, 0), from: Object.fromEntries(from) }, 'took over accounts whose leases expired')
    if (taken > 0 || handedOver > 0 || lost > 0) logger.info({ taken, handedOver, lost, owned: held.size, accounts: wanted.size, instances: membership.live().length }, 'accounts moved')
  }
  const interval = Math.max(200, Math.floor(leaseTtlMs / 3))
  let timer: ReturnType<typeof setTimeout> | undefined
  /**
   * The next round: an interval after this one, or sooner when a heartbeat or a lease this relay waits
   * for runs out first — a dead relay's accounts are taken at its lease's expiry, not up to an interval later.
   */
  const schedule = () => {
    if (closed) return
    const now = Date.now()
    const delay = nextExpiry !== undefined && nextExpiry > now ? Math.min(interval, nextExpiry - now + 50) : interval
    timer = setTimeout(runTick, delay)
  }
  const runTick = () => {
    ticking = tick()
      .catch((error: unknown) => logger.warn({}, `tick failed: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        ticking = undefined
        schedule()
      })
  }
  runTick()

  /** Stream and buckets answered within the last seconds: `/readyz` polled every second costs one request per 2 s. */
  let storageCheck: { at: number; ok: Promise<boolean> } | undefined
  const storageReachable = (): Promise<boolean> => {
    if (!storageCheck || Date.now() - storageCheck.at > 2_000) {
      const deadline = new Promise<boolean>((resolve) => setTimeout(resolve, 2_000, false).unref())
      const probe = Promise.all([jsm.streams.info(streamName), accountsKv.status(), leasesKv.status(), checkpoints.status()]).then(
        () => true,
        () => false,
      )
      storageCheck = { at: Date.now(), ok: Promise.race([probe, deadline]) }
    }
    return storageCheck.ok
  }
  const ready = async (): Promise<Readiness> => {
    const isDraining = draining !== undefined
    const storage = natsConnected && !isDraining ? await storageReachable() : false
    const checks = { nats: natsConnected, storage, joined, draining: isDraining }
    const reason = isDraining
      ? 'draining: handing accounts over before exit'
      : !natsConnected
        ? 'NATS is disconnected (reconnecting)'
        : !storage
          ? `the stream ${streamName} or the relay's KV buckets do not answer`
          : !joined
            ? 'not joined yet (no heartbeat written)'
            : undefined
    return { ready: reason === undefined, reason, checks }
  }
  const registry = metrics.registry
  let ops: Awaited<ReturnType<typeof startOpsServer>> | undefined
  const stop = async () => {
    clearTimeout(timer)
    await ticking
    clearTimeout(timer)
    closed = true
    const handing = held.size
    const started = Date.now()
    logger.info({ accounts: handing }, 'drain started: handing accounts over (checkpoints first)')
    await Promise.all([...held.keys()].map(release))
    await membership.leave()
    for (const w of watches) w.stop()
    client.close()
    publisher.close()
    logger.info({ handedOver: handing, ms: Date.now() - started }, 'drain finished')
    reportMoves()
    if (ownsNc) await nc.drain()
    await ops?.close()
  }
  try {
    if (options.http !== undefined) ops = await startOpsServer(options.http, { ready, registry, instanceId: id })
  } catch (error) {
    await stop()
    throw error
  }
  logger.info(
    {
      nats: isNatsConnection(options.nats) ? 'a connection of the caller' : ([] as string[]).concat(options.nats.servers),
      auth: isNatsConnection(options.nats) ? undefined : natsAuthKind(options.nats),
      stream: streamName,
      subjectPrefix: prefix,
      solvers: Object.entries(config.chains).flatMap(([chainId, chain]) => Object.keys(chain.solvers).map((solverId) => `${chainId}.${solverId}`)),
      maxAccounts: options.maxAccounts,
      leaseTtlMs,
      http: ops?.address,
    },
    'relay started',
  )

  return {
    owned: () => [...held.keys()].sort(),
    stats: () => ({
      instanceId: id,
      instances: membership.live().length,
      owned: held.size,
      accounts: wanted.size,
      received: metrics.received,
      published: metrics.published,
      duplicates: metrics.duplicates,
      skipped: metrics.skipped,
      retries: metrics.retries,
      checkpoints: metrics.checkpoints,
      errors: metrics.errors,
      takeovers: metrics.takeovers,
      handoffs: metrics.handoffs,
      pending: pending(),
      lagMs: metrics.lagMs,
    }),
    ready,
    registry,
    httpAddress: ops?.address,
    close: () => {
      draining ??= stop()
      return draining
    },
  }
}

/** Which credentials the relay uses, for the start log line (never the secret itself). */
function natsAuthKind(nats: NatsOptions): string {
  if (nats.creds !== undefined) return 'creds file'
  if (nats.token !== undefined) return 'token'
  if (nats.user !== undefined) return `user ${nats.user}`
  return 'none'
}

export function resolveConfig(config: RelayOptions['config']): NotificationsConfig {
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
