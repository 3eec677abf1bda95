import type { KV } from '@nats-io/kv'
import type { TracerProvider } from '@opentelemetry/api'
import type { NatsConnection } from '@nats-io/nats-core'
import { type NotificationsClient, type NotificationsClientOptions, type NotificationsConfig, type NotificationsConfigInput, createConfig, createNotificationsClient } from '@solver-notifications/core'
import type { Registry } from 'prom-client'
import { redactText } from '@solver-notifications/core/internal'
import { type AccountContext, StreamPositions } from './AccountRelay.js'
import { Coordinator } from './coordinator/Coordinator.js'
import { LivenessRounds } from './coordinator/LivenessRounds.js'
import { CONCURRENCY } from './coordinator/runBounded.js'
import { LAYOUT, openDeployment } from './deployment.js'
import { BucketGuard } from './bucketGuard.js'
import { type BucketFollower, followBucket } from './followBucket.js'
import { JetStreamPublisher } from './JetStreamPublisher.js'
import { LeaseTable, MAX_LEASE_TTL_MS } from './LeaseTable.js'
import { Membership } from './Membership.js'
import { type NatsOptions, type NatsTarget, isNatsConnection, openNats } from './natsConnection.js'
import { type Readiness, startOpsServer } from './opsServer.js'
import { readBucket } from './readBucket.js'
import { RelayError } from './RelayError.js'
import { RelayMetrics } from './RelayMetrics.js'
import { RepeatedLines } from './RepeatedLines.js'
import type { RelayStats } from './RelayStats.js'
import { type RelayLogger, lineLogger, silentLogger } from './relayLogger.js'
import { relayReadiness } from './relayReadiness.js'
import { tracerOf } from './tracing.js'
import { ACCOUNTS_BUCKET, CHECKPOINTS_BUCKET, LEASES_BUCKET, checkReplicas, checkSubjectPrefix, ensureStream, openBucket, openStorage, replicaDifferences } from './relayStorage.js'

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
  /**
   * partitions of the deployment (1,024): accounts belong to one by a hash of their key, and relays
   * lease partitions, not accounts. Fixed for a deployment's life: the first relay stores it, and a
   * relay asking for another count is told (logged) and uses the stored one.
   */
  partitions?: number | undefined
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
  /**
   * traces every publish (a PRODUCER span `send <subjectPrefix>`, its `traceparent` on the
   * message); default: the global tracer provider of `@opentelemetry/api` once an SDK registered one
   */
  tracerProvider?: TracerProvider | undefined
  /**
   * copies JetStream keeps of the stream and each bucket the relay creates (default 1; 3 on a three-node
   * cluster, so a node down leaves every account owned). What exists keeps its own count: a difference is
   * logged at start, and `solver-relay check --replicas N` reports it.
   */
  replicas?: number | undefined
  /**
   * verification of each account's open socket against its history (the client's `resume.verify`,
   * docs/guide/continuity.md): off by default, since a relay watches thousands of accounts (each verified
   * at most once every `accounts × 1 s` per solver); `true` or `{ intervalMs }` turns it on
   */
  verify?: boolean | { intervalMs?: number | undefined } | undefined
}

/**
 * A running relay.
 *
 * @example
 * const relay = await startRelay(options); console.log(relay.owned().length); await relay.close()
 */
export interface Relay {
  /** the account keys it owns: every account of the partitions it holds (it watches them, or is opening them behind their checkpoints) */
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
/**
 * Accounts per rasa hub socket on a relay (the client's `maxAccountsPerHub`, unless `client` sets it). rasa
 * resends a hub's whole list on every change: small hubs keep what moving k accounts sends O(k)
 * (a batch of 64 resends at most its hub's 128), at one socket per 128 accounts.
 */
export const RELAY_HUB_ACCOUNTS = 128

/** The options checked, with their defaults. */
function relaySettings(options: RelayOptions) {
  const leaseTtlMs = options.leaseTtlMs ?? 15_000
  if (typeof leaseTtlMs !== 'number' || !Number.isFinite(leaseTtlMs) || leaseTtlMs < 1_000 || leaseTtlMs > MAX_LEASE_TTL_MS) {
    throw new RelayError('INVALID_PARAMETERS', `leaseTtlMs must be between 1,000 and ${MAX_LEASE_TTL_MS.toLocaleString('en-US')} ms (a dead relay's accounts wait that long), got ${String(leaseTtlMs)}`)
  }
  const maxAccounts = options.maxAccounts ?? Number.MAX_SAFE_INTEGER
  if (!Number.isInteger(maxAccounts) || maxAccounts <= 0) throw new RelayError('INVALID_PARAMETERS', `maxAccounts must be a positive integer, got ${String(maxAccounts)}`)
  const id = options.instanceId ?? `relay-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  if (typeof id !== 'string' || !ID.test(id)) throw new RelayError('INVALID_PARAMETERS', `instanceId must be letters, digits, - _ or =, got ${JSON.stringify(id)}`)
  return {
    leaseTtlMs,
    maxAccounts,
    id,
    prefix: checkSubjectPrefix(options.subjectPrefix ?? 'solver.notifications'),
    streamName: options.stream ?? 'SOLVER_NOTIFICATIONS',
    config: resolveConfig(options.config),
    logger: options.logger ?? (options.log ? lineLogger(options.log) : silentLogger),
    replicas: checkReplicas(options.replicas),
    /** How long before its lease could run out a relay stops publishing for a partition it could not renew: clocks of two machines may differ this much. */
    fenceMarginMs: Math.min(2_000, Math.floor(leaseTtlMs / 5)),
  }
}

/**
 * Opens the relay's connections and storage, and checks the deployment. Liveness (heartbeats, lease renewals,
 * the leases bucket) gets a connection of its own; the work (publishes, the accounts and checkpoints buckets,
 * partition reads) goes on the other: thousands of publishes in flight, or a bucket scan, would otherwise queue
 * renewals behind them, in the client's buffer and in the server's reading of the connection. A caller's own
 * connection carries both. Nothing half-started: on failure the connections this call opened are closed again.
 */
async function openRelayNats(options: RelayOptions, settings: ReturnType<typeof relaySettings>) {
  const { id, leaseTtlMs, maxAccounts, logger } = settings
  const { nc, owned: ownsNc } = await openNats(options.nats, `solver-relay ${id}`)
  let dataNc = nc
  const closeConnections = async () => {
    if (!ownsNc) return
    if (dataNc !== nc) await dataNc.close()
    await nc.close()
  }
  try {
    if (ownsNc) dataNc = (await openNats(options.nats, `solver-relay ${id} work`)).nc
    const storage = await openStorage(dataNc, settings.replicas)
    const leasesKv = dataNc === nc ? storage.leases : await openBucket(nc, LEASES_BUCKET, settings.replicas)
    await ensureStream(storage.jsm, settings.streamName, settings.prefix, settings.replicas)
    for (const line of await replicaDifferences(storage.jsm, settings.streamName, settings.replicas).catch(() => [])) logger.warn({ replicas: settings.replicas }, line)
    const membership = new Membership(leasesKv, id, maxAccounts, leaseTtlMs)
    await membership.refuseOtherLayouts()
    await membership.refuseTwin(Math.max(200, Math.floor(leaseTtlMs / 3)))
    const { partitions } = await openDeployment(leasesKv, storage.accounts, options.partitions, (message) => logger.warn({ partitions: options.partitions }, message))
    membership.partitions = partitions
    return { nc, dataNc, ownsNc, storage, leasesKv, membership, partitions }
  } catch (error) {
    await closeConnections()
    throw error
  }
}

/**
 * Starts a relay: it joins the others on the same NATS, takes the accounts rendezvous hashing gives it
 * (leases in `solver_relay_leases`, by revision), watches each from its checkpoint, and publishes every
 * notification once into JetStream. A dead relay's leases expire after `leaseTtlMs` and the others take
 * its accounts over from their checkpoints. Bad input (config, NATS, stream) throws a `RelayError`
 * before anything starts.
 *
 * The relay's partitions and accounts have one writer, the {@link Coordinator} (see `docs/architecture.md`,
 * Relay): this function wires it to NATS, the liveness rounds, the ops server and the `Relay` object.
 *
 * @example
 * const relay = await startRelay({ config: JSON.parse(readFileSync('solvers.json', 'utf8')), nats: { servers: 'nats://127.0.0.1:4222' } })
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  const settings = relaySettings(options)
  const { id, leaseTtlMs, prefix, streamName, config, logger } = settings
  const { nc, dataNc, ownsNc, storage, leasesKv, membership, partitions } = await openRelayNats(options, settings)
  const { js, jsm, accounts: accountsKv, checkpoints } = storage
  const publisher = new JetStreamPublisher(dataNc)
  const client = relayClient(options, config)
  let natsConnected = true
  // The metrics read the coordinator and the rounds, made just below.
  let coordinator: Coordinator | undefined
  let rounds: LivenessRounds | undefined
  const metrics = new RelayMetrics({
    owned: () => coordinator?.ownedCount() ?? 0,
    partitions: () => coordinator?.slots.size ?? 0,
    partitionCount: () => partitions,
    accounts: () => rounds?.totalAccounts ?? 0,
    pending: () => coordinator?.opener.pending() ?? 0,
    natsConnected: () => natsConnected,
    client: () => client.stats(),
  })
  // NATS denies an operation the relay needs (writing leases, checkpoints, publishing): it withdraws and says so.
  const denied = (operation: string, message: string) => withdrawDenied(operation, message, { metrics, membership, logger, soon: () => rounds?.soon() })
  const leases = partitionLeases(leasesKv, id, leaseTtlMs, metrics, logger, (message) => denied('write leases', message))
  // An outage's thousands of failed publishes and lost partitions: one line a second, counted by cause.
  const lines = new RepeatedLines(logger)
  const accountContext: AccountContext = {
    denied: (message) => denied(`publish to ${prefix}.>`, message),
    positions: new StreamPositions(),
    lines,
    verify: options.verify,
    client,
    publisher,
    subjectPrefix: prefix,
    metrics,
    logger,
    protocolOf: (w) => protocolOf(config, w),
    streamLost: streamRecovery(jsm, streamName, prefix, settings.replicas, logger),
    tracer: () => tracerOf(options.tracerProvider),
  }
  const c = new Coordinator({
    id,
    partitions,
    leaseTtlMs,
    fenceMarginMs: settings.fenceMarginMs,
    leases,
    membership,
    checkpoints,
    readAccounts: (pattern, onEntry) => readBucket(js, jsm, ACCOUNTS_BUCKET, pattern, onEntry),
    accountContext,
    metrics,
    logger,
    totalAccounts: () => rounds?.totalAccounts ?? 0,
    livenessSoon: () => rounds?.soon(),
    lines,
    denied,
  })
  coordinator = c
  const watches: [BucketFollower, BucketFollower] = [
    await followBucket(accountsKv, (entry) => {
      metrics.bucketEntries++
      void c.dispatch({ type: 'entry', entry })
    }),
    await followBucket(leasesKv, (entry) => void c.dispatch({ type: 'leaseEntry', entry })),
  ]
  const guard = guardBuckets({ accountsKv, leasesKv, checkpoints, nc, dataNc, watches, metrics, logger, partitions, coordinator: c, replicas: settings.replicas })
  const liveness = new LivenessRounds({ id, partitions, leaseTtlMs, membership, leases, accountsKv, coordinator: c, logger, checkBuckets: () => guard.check() })
  rounds = liveness
  let closed = false
  const refusals = natsRefusals(metrics, logger)
  followReconnects(nc, dataNc, watches, guard, logger, {
    closed: () => closed,
    connected: (connected) => {
      natsConnected = connected
    },
    refused: refusals.refused,
  })
  liveness.start()

  let draining: Promise<void> | undefined
  const ready = relayReadiness({
    streamName,
    probe: () => Promise.all([jsm.streams.info(streamName), accountsKv.status(), leasesKv.status(), checkpoints.status()]),
    state: () => ({ natsConnected, natsRefused: refusals.reason, denied: [...metrics.denied.keys()], joined: liveness.joined, draining: draining !== undefined }),
  })
  const registry = metrics.registry
  let ops: Awaited<ReturnType<typeof startOpsServer>> | undefined
  const stop = async () => {
    const handing = c.opener.open.size
    const started = Date.now()
    logger.info({ accounts: handing, partitions: c.slots.size }, 'drain started: handing accounts over (checkpoints first)')
    // The heartbeat goes first: the others plan without this relay at once (their watch sees it) and take
    // each partition the moment its lease is given back, instead of planning it here until it expires.
    // Renewals go on while the accounts are handed over (a drain may take longer than a lease); the rounds
    // write no heartbeat while draining.
    const left = membership.leave()
    await c.drain()
    await c.opener.running
    await c.dispatch({ type: 'closeAccounts', keys: [...c.opener.open.keys()] })
    closed = true
    c.close()
    await liveness.stop()
    await left
    for (const w of watches) w.stop()
    client.close()
    publisher.close()
    lines.flush()
    logger.info({ handedOver: handing, ms: Date.now() - started }, 'drain finished')
    c.reportMoves()
    if (ownsNc) {
      if (dataNc !== nc) await dataNc.drain()
      await nc.drain()
    }
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
      partitions,
      http: ops?.address,
    },
    'relay started',
  )

  return {
    owned: () => c.ownedAccounts().sort(),
    stats: () => relayStats(id, metrics, { instances: membership.live().length, owned: c.ownedCount(), accounts: liveness.totalAccounts, pending: c.opener.pending() }),
    ready,
    registry,
    httpAddress: ops?.address,
    close: () => {
      draining ??= stop()
      return draining
    },
  }
}

/**
 * Follows both connections' status: NATS connected or not (readiness), and the watches restarted on every
 * reconnect (a restarted server may have lost their consumers). The accounts watch is on the work connection,
 * the leases watch on the liveness one.
 */
function followReconnects(
  nc: NatsConnection,
  dataNc: NatsConnection,
  [accountsWatch, leasesWatch]: [BucketFollower, BucketFollower],
  guard: BucketGuard,
  logger: RelayLogger,
  relay: { closed(): boolean; connected(connected: boolean): void; refused(reason: string | undefined): void },
): void {
  const down = new Set<NatsConnection>()
  // A restart that fails (a cluster still electing the bucket's leader, the bucket gone) leaves the watch
  // ended: the guard, which runs next and on every full round, starts it again (or recreates the bucket).
  const restart = (w: BucketFollower) => w.restart().catch((e: unknown) => logger.warn({}, `watch restart failed: ${String(e)}; the next bucket check starts it again`))
  const follow = (conn: NatsConnection, what: string, reconnected: () => Promise<unknown>) =>
    void (async () => {
      for await (const s of conn.status()) {
        if (relay.closed()) break
        if (s.type === 'disconnect') {
          down.add(conn)
          relay.connected(false)
          logger.warn({ server: s.server, connection: what }, 'NATS disconnected; reconnecting (publishes are retried, checkpoints stay behind them)')
        } else if (s.type === 'error' && /authoriz|authenticat/i.test(String(s.error?.message))) {
          // Refused credentials: counted, and readiness says so until a reconnect succeeds (logged once per outage).
          relay.refused(redactText(String(s.error.message)))
        } else if (s.type === 'reconnect') {
          down.delete(conn)
          relay.refused(undefined)
          relay.connected(down.size === 0)
          logger.info({ server: s.server, connection: what }, 'NATS reconnected')
          await reconnected()
        }
      }
    })()
  // After a reconnect the watches resume where they were, then the guard looks for a server that came
  // back without its buckets (a lost volume): those are recreated and read again from the start.
  follow(nc, 'liveness', async () => {
    await restart(leasesWatch)
    if (dataNc === nc) await restart(accountsWatch)
    await guard.check().catch((e: unknown) => logger.warn({}, `bucket check failed: ${String(e)}`))
  })
  if (dataNc !== nc) follow(dataNc, 'work', async () => {
    await restart(accountsWatch)
    await guard.check().catch((e: unknown) => logger.warn({}, `bucket check failed: ${String(e)}`))
  })
}

/**
 * The relay's notifications client. Hubs of at most RELAY_HUB_ACCOUNTS: a rasa hub resends its whole list on
 * every change, so a bounded list keeps each subscribe frame small and the bytes of moving accounts linear,
 * not quadratic. Accounts open CONCURRENCY at a time, each with a first backfill: history may serve as many at once.
 */
function relayClient(options: RelayOptions, config: NotificationsConfig): NotificationsClient {
  return createNotificationsClient({ lingerMs: 0, maxAccountsPerHub: RELAY_HUB_ACCOUNTS, ...options.client, search: { concurrency: CONCURRENCY }, config })
}

/** The wire protocol of an account's solver (a metrics label), `unknown` for a solver the config lacks. */
function protocolOf(config: NotificationsConfig, w: { chainId: number; solverId: string }): string {
  try {
    return config.getSolver({ chainId: w.chainId, solverId: w.solverId }).notifications.protocol
  } catch {
    return 'unknown'
  }
}

/** NATS denies the relay an operation it needs: it withdraws (capacity 0: the others take its partitions) and says so, once per operation. */
function withdrawDenied(operation: string, message: string, r: { metrics: RelayMetrics; membership: Membership; logger: RelayLogger; soon: () => void }): void {
  if (r.metrics.denied.has(operation)) return
  r.metrics.denied.set(operation, 1)
  r.membership.withdraw()
  r.logger.error({ operation }, `NATS denies this relay's user to ${operation} (${message}): withdrawn, its partitions go to the other relays; grant the permission and restart it`)
  r.soon()
}

/** The partition leases; entries that are not leases are reported as the watch delivers them, once per revision. */
function partitionLeases(kv: KV, id: string, leaseTtlMs: number, metrics: RelayMetrics, logger: RelayLogger, denied: (message: string) => void): LeaseTable {
  return new LeaseTable(
    kv,
    id,
    leaseTtlMs,
    'partitions',
    (key, why, revision) => {
      metrics.garbageLeases++
      logger.warn({ lease: `partitions.${key}`, why, revision }, 'an entry of the leases bucket is not a lease: treated as expired, the next round takes the partition over')
    },
    denied,
  )
}

/** Refused credentials: counted, logged once per outage, and named by readiness until a reconnect succeeds. */
function natsRefusals(metrics: RelayMetrics, logger: RelayLogger) {
  let reason: string | undefined
  return {
    get reason() {
      return reason
    },
    refused(now: string | undefined) {
      if (now !== undefined) {
        metrics.natsAuthErrors++
        if (reason === undefined) logger.error({ reason: now }, 'NATS refuses the credentials; reconnecting until it takes them (check --nats-token, --nats-user/--nats-password or --nats-creds)')
      }
      reason = now
    },
  }
}

/**
 * NATS may lose a bucket (a lost volume, a deleted stream): noticed after every reconnect and every full
 * round, recreated, logged once, read again from the start, and every partition taken again.
 */
function guardBuckets(r: {
  accountsKv: KV
  leasesKv: KV
  checkpoints: KV
  nc: NatsConnection
  dataNc: NatsConnection
  watches: [BucketFollower, BucketFollower]
  metrics: RelayMetrics
  logger: RelayLogger
  partitions: number
  coordinator: Coordinator
  replicas: number
}): BucketGuard {
  const kinds = { [ACCOUNTS_BUCKET]: 'accounts', [LEASES_BUCKET]: 'leases', [CHECKPOINTS_BUCKET]: 'checkpoints' } as const
  return new BucketGuard(
    [
      { name: ACCOUNTS_BUCKET, kv: r.accountsKv, nc: r.dataNc, follower: r.watches[0], replicas: r.replicas },
      // The deployment's config lived in the leases bucket: written again as this relay runs it, until it lands.
      { name: LEASES_BUCKET, kv: r.leasesKv, nc: r.nc, follower: r.watches[1], replicas: r.replicas, repair: () => rewriteConfig(r.leasesKv, r.partitions, r.logger) },
      { name: CHECKPOINTS_BUCKET, kv: r.checkpoints, nc: r.dataNc, replicas: r.replicas },
    ],
    async (bucket, cause, detail) => {
      r.metrics.bucketResets.set(bucket, (r.metrics.bucketResets.get(bucket) ?? 0) + 1)
      r.logger.warn({ bucket, cause }, `${detail}; read again from the start, every partition taken again`)
      await r.coordinator.dispatch({ type: 'bucketReset', bucket: kinds[bucket as keyof typeof kinds] })
    },
  )
}

/** Writes the deployment's config into a recreated leases bucket; one written by another relay first is as good. */
async function rewriteConfig(leasesKv: KV, partitions: number, logger: RelayLogger): Promise<void> {
  try {
    await leasesKv.create('config', JSON.stringify({ layout: LAYOUT, partitions }))
  } catch (error) {
    if (/wrong last sequence|key exists/i.test((error as Error)?.message ?? '')) return
    logger.warn({ bucket: LEASES_BUCKET }, `the deployment's config not written again (${(error as Error)?.message ?? String(error)}); tried again at the next bucket check`)
    throw error
  }
}

/** The relay's counters as `stats()` returns them. */
function relayStats(instanceId: string, metrics: RelayMetrics, now: Pick<RelayStats, 'instances' | 'owned' | 'accounts' | 'pending'>): RelayStats {
  return {
    instanceId,
    instances: now.instances,
    owned: now.owned,
    accounts: now.accounts,
    received: metrics.received,
    published: metrics.published,
    duplicates: metrics.duplicates,
    recovered: metrics.recoveredTotal,
    skipped: metrics.skipped,
    retries: metrics.retries,
    checkpoints: metrics.checkpoints,
    errors: metrics.errors,
    takeovers: metrics.takeovers,
    handoffs: metrics.handoffs,
    bucketEntries: metrics.bucketEntries,
    pending: now.pending,
    lagMs: metrics.lagMs,
  }
}

/** One check at a time, shared by every publish that failed meanwhile: was the stream there (re-created if not)? */
function streamRecovery(jsm: Parameters<typeof ensureStream>[0], streamName: string, prefix: string, replicas: number, logger: RelayLogger): () => Promise<boolean> {
  let recovering: Promise<boolean> | undefined
  return () => {
    recovering ??= ensureStream(jsm, streamName, prefix, replicas)
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
}

/** Which credentials the relay uses, for the start log line (never the secret itself). */
function natsAuthKind(nats: NatsOptions): string {
  if (nats.creds !== undefined) return 'creds file'
  if (nats.token !== undefined) return 'token'
  if (nats.user !== undefined) return `user ${nats.user}`
  return 'none'
}

/**
 * The solvers config of a relay: a config `createConfig` made, or its input, checked.
 *
 * @example
 * const config = resolveConfig(JSON.parse(readFileSync('solvers.json', 'utf8')))
 */
export function resolveConfig(config: RelayOptions['config']): NotificationsConfig {
  if (config && typeof (config as NotificationsConfig).getSolver === 'function') return config as NotificationsConfig
  try {
    return createConfig(config as NotificationsConfigInput)
  } catch (cause) {
    throw new RelayError('INVALID_CONFIG', `The solvers config is invalid: ${(cause as Error)?.message ?? String(cause)}`, { cause })
  }
}

export type { NatsConnection }
