import type { KV, KvEntry } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/nats-core'
import { type NotificationsClient, type NotificationsClientOptions, type NotificationsConfig, type NotificationsConfigInput, createConfig, createNotificationsClient, isServiceError } from '@solver-notifications/core'
import { isPlausiblePosition } from '@solver-notifications/core/internal'
import { type WatchedAccount, parseAccountKey } from './accountKeys.js'
import { type AccountContext, AccountRelay } from './AccountRelay.js'
import { JetStreamPublisher } from './JetStreamPublisher.js'
import { type NatsOptions, type NatsTarget, isNatsConnection, openNats } from './natsConnection.js'
import { nextRound } from './nextRound.js'
import { RelayError } from './RelayError.js'
import type { RelayStats } from './RelayStats.js'
import { RelayMetrics } from './RelayMetrics.js'
import { type RelayLogger, lineLogger, silentLogger } from './relayLogger.js'
import { type Readiness, startOpsServer } from './opsServer.js'
import type { Registry } from 'prom-client'
import { type BucketEntry, readBucket } from './readBucket.js'
import { ACCOUNTS_BUCKET, LEASES_BUCKET, checkSubjectPrefix, ensureStream, openBucket, openStorage } from './relayStorage.js'
import { LeaseTable } from './LeaseTable.js'
import { Membership } from './Membership.js'
import { openDeployment, parseStoredKey, storedKey } from './deployment.js'
import { assignPartitions, partitionOf } from './partitions.js'
import { PartitionCheckpoint, type RecordHooks } from './PartitionCheckpoint.js'
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
/** Lease operations run this many at a time, so 5,000 accounts do not open 5,000 requests at once. */
const CONCURRENCY = 64
/** What reading one partition's accounts through its own consumer costs (nats-server 2.9, measured), against one entry of a whole-bucket scan. */
const PARTITION_READ_MS = 15
const SCAN_ENTRY_MS = 0.01
/** Single-partition reads at once in a batch (a consumer each on the server). */
const PARTITION_READS = 16

/** One read of a partition's keys (see `readPartitions` in startRelay). */
interface PartitionRead {
  /** keys the watch saw deleted while the read ran (its answer may be older) */
  deleted: Set<string>
  /** keys the bucket has, from the read or the watch */
  seen: Set<string>
  /** entries of the partition the read delivered */
  entries: number
  /** the lease the partition was held under when the read began */
  lease: object & { releasing: boolean }
  failed: boolean
}

/**
 * An account this relay wants, as one object. Built field by field: a spread copy gets a hidden class
 * (and a property array) of its own per object, ~0.3 KiB per account on V8.
 */
function wantedAccount(w: WatchedAccount, since: number, partition: number): WatchedAccount & { since: number; partition: number } {
  return { key: w.key, chainId: w.chainId, solverId: w.solverId, account: w.account, since, partition }
}

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

  // Liveness (heartbeats, lease renewals, the leases bucket) gets a connection of its own when the
  // relay opens its connections; the work (publishes, the accounts and checkpoints buckets, partition
  // reads) goes on the other. Thousands of publishes in flight, or a bucket scan, would otherwise queue
  // renewals behind them, in the client's buffer and in the server's reading of the connection. A
  // caller's own connection carries both.
  const { nc, owned: ownsNc } = await openNats(options.nats, `solver-relay ${id}`)
  let dataNc = nc
  let storage: Awaited<ReturnType<typeof openStorage>>
  let leasesKv: KV
  const closeConnections = async () => {
    if (!ownsNc) return
    if (dataNc !== nc) await dataNc.close()
    await nc.close()
  }
  try {
    if (ownsNc) dataNc = (await openNats(options.nats, `solver-relay ${id} work`)).nc
    storage = await openStorage(dataNc)
    leasesKv = dataNc === nc ? storage.leases : await openBucket(nc, LEASES_BUCKET)
    await ensureStream(storage.jsm, streamName, prefix)
  } catch (error) {
    // Nothing half-started: the connections this call opened are closed again.
    await closeConnections()
    throw error
  }
  const { js, jsm, accounts: accountsKv, checkpoints } = storage
  const membership = new Membership(leasesKv, id, maxAccounts, leaseTtlMs)
  // Reported as the leases watch delivers them (after the metrics exist): once per entry revision.
  const leases = new LeaseTable(leasesKv, id, leaseTtlMs, 'partitions', (key, why, revision) => {
    metrics.garbageLeases++
    logger.warn({ lease: `partitions.${key}`, why, revision }, 'an entry of the leases bucket is not a lease: treated as expired, the next round takes the partition over')
  })
  let partitions: number
  try {
    await membership.refuseOtherLayouts()
    await membership.refuseTwin(Math.max(200, Math.floor(leaseTtlMs / 3)))
    partitions = (await openDeployment(leasesKv, accountsKv, options.partitions, (message) => logger.warn({ partitions: options.partitions }, message))).partitions
  } catch (error) {
    await closeConnections()
    throw error
  }
  const publisher = new JetStreamPublisher(dataNc)
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
  // Hubs of at most RELAY_HUB_ACCOUNTS: a rasa hub resends its whole list on every change, so a bounded
  // list keeps each subscribe frame small and the bytes of moving accounts linear, not quadratic.
  // Accounts open CONCURRENCY at a time, each with a first backfill: history may serve as many at once.
  const client: NotificationsClient = createNotificationsClient({ lingerMs: 0, maxAccountsPerHub: RELAY_HUB_ACCOUNTS, ...options.client, search: { concurrency: CONCURRENCY }, config })
  /** accounts in the bucket (all partitions), refreshed every round */
  let totalAccounts = 0
  /** the accounts of the partitions this relay holds, and the accounts of each partition */
  // One object per account: the account itself, where it resumes from and its partition (a relay holds thousands).
  const wanted = new Map<string, WatchedAccount & { since: number; partition: number }>()
  const byPartition = new Map<number, Set<string>>()
  /** each held partition's checkpoint record, claimed when its accounts are read */
  const records = new Map<number, PartitionCheckpoint>()
  /** the partitions this relay leases: the revision it holds, until when a renewal confirmed it, and whether it is being handed over */
  const held = new Map<number, { revision: number; confirmedUntil: number; releasing: boolean; givingBack?: boolean; renewing?: Promise<unknown> | undefined }>()
  /** the accounts this relay watches (opening, or open) */
  const open = new Map<string, AccountRelay>()
  let closed = false
  let draining: Promise<void> | undefined
  /** set the moment a drain starts: nothing new is opened or taken from then on */
  let handingOver = false
  let natsConnected = true
  let joined = false
  const pending = () => {
    let n = 0
    for (const relay of open.values()) n += relay.inFlight
    return n
  }
  const isMine = (partition: number) => {
    const lease = held.get(partition)
    return lease !== undefined && !lease.releasing
  }
  const ownedCount = () => {
    let n = 0
    for (const [partition, lease] of held) if (!lease.releasing) n += byPartition.get(partition)?.size ?? 0
    return n
  }
  const ownedAccounts = () => {
    const keys: string[] = []
    for (const [partition, lease] of held) if (!lease.releasing) for (const key of byPartition.get(partition) ?? []) keys.push(key)
    return keys
  }
  const metrics = new RelayMetrics({ owned: () => ownedCount(), partitions: () => held.size, partitionCount: () => partitions, accounts: () => totalAccounts, pending, natsConnected: () => natsConnected, client: () => client.stats() })
  const protocolOf = (w: WatchedAccount) => {
    try {
      return config.getSolver({ chainId: w.chainId, solverId: w.solverId }).notifications.protocol
    } catch {
      return 'unknown'
    }
  }
  /** Handing accounts over: bounded, and never stopped (a drain is made of them). */
  const handovers = new WorkerPool(CONCURRENCY, () => false)

  /** An account removed from the bucket: let go, and its position forgotten (added again, it starts from its new entry). */
  const removeAccount = (key: string, partition: number) => {
    wanted.delete(key)
    byPartition.get(partition)?.delete(key)
    if (!open.has(key)) records.get(partition)?.forget(key)
    if (isMine(partition)) reconcileSoon()
  }
  /** An account of a partition's checkpoint record, watched at once when the partition is taken (the bucket's read confirms it after). */
  const fromRecord = (key: string, partition: number, since: number) => {
    if (wanted.has(key)) return
    let watched: WatchedAccount
    try {
      watched = parseAccountKey(key)
    } catch {
      return // not an account key: the bucket's read decides
    }
    wanted.set(key, wantedAccount(watched, since, partition))
    let members = byPartition.get(partition)
    if (!members) byPartition.set(partition, (members = new Set()))
    members.add(key)
  }
  /**
   * Keys of the accounts bucket that are not where this layout stores an account (the old unpartitioned
   * form written by hand, or a key under another partition than its own): reported once each, never
   * watched, not counted as accounts.
   */
  const misplaced = new Set<string>()
  const reportMisplaced = (e: BucketEntry, key: string | undefined) => {
    if (e.operation !== 'PUT') {
      misplaced.delete(e.key)
      return
    }
    if (misplaced.has(e.key)) return
    misplaced.add(e.key)
    metrics.misplacedKeys++
    const where = key === undefined ? 'is not stored under a partition' : 'is stored under another partition than its own'
    const fix = key === undefined ? '' : ` (this layout stores it as "${storedKey(key, partitions)}")`
    logger.warn({ key: e.key }, `accounts bucket key "${e.key}" ${where}${fix}: it is not watched and not counted. Move it with "solver-relay migrate" (relays drained first), or delete it and add the account again with "solver-relay accounts add".`)
  }
  /** An account entry of a partition this relay watches (`p<n>.<key>`). */
  const onAccount = (e: BucketEntry) => {
    const stored = parseStoredKey(e.key)
    if (!stored || partitionOf(stored.key, partitions) !== stored.partition) {
      reportMisplaced(e, stored?.key)
      return
    }
    if (!held.has(stored.partition)) return
    const key = stored.key
    const before = wanted.get(key)
    if (e.operation !== 'PUT') {
      for (const r of loading.get(stored.partition) ?? []) r.deleted.add(key)
      if (before) removeAccount(key, before.partition)
      return
    }
    for (const r of loading.get(stored.partition) ?? []) r.seen.add(key)
    let watched: WatchedAccount
    try {
      watched = parseAccountKey(key)
    } catch (error) {
      logger.warn({ key }, (error as Error).message)
      return
    }
    let since = Math.floor(e.created.getTime() / 1000)
    try {
      const value = e.length > 0 ? e.json<{ since?: unknown }>() : {}
      if (isPlausiblePosition(value?.since)) since = value.since
      else if (value?.since !== undefined) {
        // A position in milliseconds (or days ahead) would make the backfill wait for a future that never comes.
        logger.warn({ account: key, since: value.since }, `account ${key}: since ${JSON.stringify(value.since)} is not unix seconds (milliseconds?); relaying from when the key was put (${since})`)
      }
    } catch {
      logger.warn({ account: key }, `account ${key}: value is not JSON; using {}`)
    }
    const partition = stored.partition
    wanted.set(key, wantedAccount(watched, since, partition))
    let members = byPartition.get(partition)
    if (!members) byPartition.set(partition, (members = new Set()))
    members.add(key)
    // Accounts read by a partition's load open together when the loads are done (one subscribe frame per hub per batch).
    if (isMine(partition) && !open.has(key) && batchesReading === 0) reconcileSoon()
  }

  /**
   * Reads the accounts of partitions just taken; changes after that come through the bucket's watch,
   * which drops every other partition's entries: an account this relay does not own costs it no
   * memory. Partitions taken together are read together: each one's checkpoints claimed first (that
   * fences a previous owner's writes before any account opens here), then their entries read — through
   * one consumer per partition (`p<n>.>`, 16 at a time) when they are few, or one scan of the whole
   * bucket when that is cheaper (a relay's first round, or a large takeover): on nats-server 2.9 a
   * consumer costs ~15 ms to make and lingers a while, a scanned entry ~10 µs.
   */
  /** partitions being read: keys deleted meanwhile (the watch's delete is newer than the read's answer) and keys the bucket has */
  /** claims under way: a handover waits for its partition's claim to land before it gives the lease back */
  const claiming = new Map<number, Promise<void>>()
  /** reads under way, by partition (a partition handed over and taken again may have two) */
  const loading = new Map<number, Set<PartitionRead>>()
  const toLoad = new Set<number>()
  let batchesReading = 0
  /**
   * Reads the partitions a round took, as one batch, beside the liveness timer; a batch never waits for
   * an earlier one (in a takeover, leases run out one after another).
   */
  const readTaken = () => {
    const batch = [...toLoad].filter((p) => held.has(p))
    toLoad.clear()
    if (batch.length === 0 || closed) return
    batchesReading++
    void loadTaken(batch).finally(() => {
      batchesReading--
      reconcileSoon()
    })
  }
  /** A partition whose accounts could not be read is given back: taken (and read) again in a later round, never held without its accounts. */
  const giveUp = (partition: number, what: string, error: unknown) => {
    logger.warn({ partition }, `partition ${partition}: ${what} (${(error as Error)?.message ?? String(error)}); given back, taken again in a later round`)
    void release(partition)
  }
  const loadTaken = async (batch: number[]) => {
    const started = Date.now()
    const claimed: number[] = []
    await runBounded(batch, async (partition) => {
      const lease = held.get(partition)
      // Handed over (or lost) before its turn came: claiming now would fence its new owner.
      if (!lease || lease.releasing) return
      const stillMine = () => held.get(partition) === lease && !lease.releasing
      let settle = () => {}
      claiming.set(partition, new Promise<void>((resolve) => (settle = resolve)))
      try {
        const record = await PartitionCheckpoint.claim(checkpoints, partition, id, recordHooks(partition), stillMine)
        // Lost (and maybe taken again, with a claim of its own) meanwhile: this claim is not the one to keep.
        if (!lease || held.get(partition) !== lease) {
          record.drop()
          return
        }
        records.set(partition, record)
        claimed.push(partition)
        // Its accounts as its last owner left them, watched now: a takeover waits for one KV read, not the bucket's.
        for (const [key, position] of record.accounts()) fromRecord(key, partition, position.since)
      } catch (error) {
        if (stillMine()) giveUp(partition, 'checkpoints not claimed', error)
      } finally {
        claiming.delete(partition)
        settle()
      }
    })
    const claimedAt = Date.now()
    if (claimed.length > 0) reconcileSoon()
    const { read, scan } = await readPartitions(claimed, false)
    if (claimed.length > 0) {
      logger.info({ partitions: claimed.length, entries: read, scan, claimMs: claimedAt - started, readMs: Date.now() - claimedAt }, 'partitions read')
    }
  }
  /** Partitions read again because their read found none of their record's accounts (one timer each). */
  const rereads = new Map<number, ReturnType<typeof setTimeout>>()
  const rereadMs = Math.max(200, Math.floor(leaseTtlMs / 3))
  /**
   * Reads held partitions' keys and lets go of the record's accounts the bucket no longer has. A read
   * that finds nothing of a partition whose record holds accounts keeps them and reads it again a
   * round later (a busy server has answered a read with no entries); when that read finds none too,
   * they were all removed, and they go.
   */
  const readPartitions = async (partitions: number[], again: boolean): Promise<{ read: number; scan: boolean }> => {
    let read = 0
    // This read's own state per partition, and the lease it was made under: a partition handed over
    // and taken again meanwhile is reconciled by the read of its new lease, never by this one.
    const reads = new Map<number, PartitionRead>()
    for (const partition of partitions) {
      const lease = held.get(partition)
      if (!lease) continue
      const r: PartitionRead = { deleted: new Set(), seen: new Set(), entries: 0, lease, failed: false }
      reads.set(partition, r)
      let under = loading.get(partition)
      if (!under) loading.set(partition, (under = new Set()))
      under.add(r)
    }
    const take = (entry: BucketEntry) => {
      const parsed = parseStoredKey(entry.key)
      read++
      const r = parsed && reads.get(parsed.partition)
      if (!r) return
      r.entries++
      // Deleted while this read was under way: the watch's delete is newer than this answer.
      if (entry.operation === 'PUT' && !r.deleted.has(parsed.key) && held.get(parsed.partition) === r.lease) onAccount(entry)
    }
    const failed = (partition: number, error: unknown) => {
      const r = reads.get(partition)
      if (r) r.failed = true
      giveUp(partition, 'accounts not read', error)
    }
    const scan = partitions.length * PARTITION_READ_MS > totalAccounts * SCAN_ENTRY_MS
    if (scan) {
      try {
        await readBucket(js, jsm, ACCOUNTS_BUCKET, '>', take)
      } catch (error) {
        for (const partition of partitions) failed(partition, error)
      }
    } else {
      await runBounded(
        partitions,
        async (partition) => {
          try {
            await readBucket(js, jsm, ACCOUNTS_BUCKET, `p${partition}.>`, take)
          } catch (error) {
            failed(partition, error)
          }
        },
        PARTITION_READS,
      )
    }
    for (const [partition, state] of reads) {
      const under = loading.get(partition)
      under?.delete(state)
      if (under?.size === 0) loading.delete(partition)
      // A failed read proves nothing, and a partition let go (or taken again) meanwhile is not this read's.
      if (state.failed || held.get(partition) !== state.lease || state.lease.releasing) continue
      const missing = [...(byPartition.get(partition) ?? [])].filter((key) => !state.seen.has(key))
      if (missing.length === 0) continue
      // In the record but not in the bucket: removed while nobody owned the partition. Unless the read
      // found nothing of the partition at all, the first time: forgetting every account on one empty
      // answer would lose their positions, so they stay until a second read a round later.
      if (state.entries > 0 || again) {
        if (state.entries === 0) logger.warn({ partition, accounts: missing.length }, `partition ${partition}: read again, the bucket still has none of the ${missing.length} accounts its checkpoints hold; they were removed, let go`)
        for (const key of missing) removeAccount(key, partition)
        continue
      }
      logger.warn({ partition, accounts: missing.length }, `partition ${partition}: the bucket's read found none of the ${missing.length} accounts its checkpoints hold; kept them, read again in ${rereadMs} ms`)
      clearTimeout(rereads.get(partition))
      rereads.set(
        partition,
        setTimeout(() => {
          rereads.delete(partition)
          if (!closed && isMine(partition)) void readPartitions([partition], true)
        }, rereadMs),
      )
    }
    return { read, scan }
  }
  /** A partition let go: its accounts are forgotten (an account it does not own costs it nothing). */
  const forgetPartition = (partition: number) => {
    records.delete(partition)
    for (const key of byPartition.get(partition) ?? []) wanted.delete(key)
    byPartition.delete(partition)
  }
  // One bucket, two tables: heartbeats (`instances.<id>`) and partition leases (`partitions.<n>`).
  const onLease = (e: KvEntry) => {
    const [kind, ...rest] = e.key.split('.')
    const key = rest.join('.')
    if (kind === 'instances') {
      membership.onEntry(key, e)
      // A relay that left (drained) said so: look again now, not at the next timed round.
      if (e.operation !== 'PUT' && key !== id) livenessSoon()
    } else if (kind === 'partitions') {
      leases.onEntry(key, e)
      if (e.operation !== 'PUT' && Number(key) >= 0) livenessSoon()
    }
  }
  const watches = [
    await follow(accountsKv, (e) => {
      metrics.bucketEntries++
      onAccount(e)
    }),
    await follow(leasesKv, onLease),
  ]
  // A restarted server may have lost the watchers' consumers: follow again on every reconnect.
  const down = new Set<NatsConnection>()
  const followStatus = (conn: NatsConnection, what: string, reconnected: () => Promise<void>) =>
    void (async () => {
      for await (const s of conn.status()) {
        if (closed) break
        if (s.type === 'disconnect') {
          down.add(conn)
          natsConnected = false
          logger.warn({ server: s.server, connection: what }, 'NATS disconnected; reconnecting (publishes are retried, checkpoints stay behind them)')
        } else if (s.type === 'reconnect') {
          down.delete(conn)
          natsConnected = down.size === 0
          logger.info({ server: s.server, connection: what }, 'NATS reconnected')
          await reconnected()
        }
      }
    })()
  const restart = async (w: (typeof watches)[number]) => w.restart().catch((e: unknown) => logger.warn({}, `watch restart failed: ${String(e)}`))
  // The accounts watch is on the work connection, the leases watch on the liveness one.
  followStatus(nc, 'liveness', async () => {
    await restart(watches[1]!)
    if (dataNc === nc) await restart(watches[0]!)
  })
  if (dataNc !== nc) followStatus(dataNc, 'work', () => restart(watches[0]!))

  /** What rounds did, logged as counts (1,000 partitions are one line, not 1,000). */
  let moves = { taken: 0, handedOver: 0, lost: 0, opened: 0, from: new Map<string, number>() }

  // ---- work: opening and closing accounts, never in the way of liveness ----

  /** What every account shares: one object for the relay, none per account. */
  const accountContext: AccountContext = { client, publisher, subjectPrefix: prefix, metrics, logger, protocolOf, streamLost }
  /** What a partition's checkpoint record asks of the relay. */
  const recordHooks = (partition: number): RecordHooks => ({
    // Still held (a handover writes the checkpoints before giving the lease back) and renewed in time.
    fenced: () => (held.get(partition)?.confirmedUntil ?? 0) <= Date.now(),
    // Only the record this relay holds now: a claim that lost a race with a newer one of ours is no news.
    stale: (record) => {
      if (records.get(partition) === record) void lose(partition, 'another relay claimed its checkpoints')
    },
    wrote: () => {
      metrics.checkpoints++
    },
    failed: (message) => {
      metrics.error('CHECKPOINT')
      logger.warn({ partition }, `partition ${partition}: checkpoints not written (${message}); written again in a second, and a takeover meanwhile republishes (de-duplicated)`)
    },
    warn: (fields, message) => logger.warn({ partition, ...fields }, message),
  })

  /**
   * Opens accounts of held partitions from their checkpoints, CONCURRENCY at a time: their checkpoints
   * read side by side, then all subscribed in one tick (a rasa hub sends one subscribe frame for the
   * batch, not one per account), then their first backfills awaited, so history requests stay bounded.
   */
  const openBatch = async (keys: string[]) => {
    const batch: Array<{ key: string; relay: AccountRelay; partition: number }> = []
    // No await until every stream of the batch subscribed: one tick, so a hub sends one frame for them.
    for (const key of keys) {
      const entry = wanted.get(key)
      const record = entry && records.get(entry.partition)
      if (!entry || !record || open.has(key) || !isMine(entry.partition) || closed || handingOver) continue
      let relay: AccountRelay
      try {
        relay = AccountRelay.prepare(entry, accountContext, record, entry.since)
      } catch (error) {
        metrics.error('WATCH')
        logger.error({ account: key }, `${key}: cannot watch: ${isServiceError(error) ? `${error.code}: ${error.message}` : String(error)}`)
        continue
      }
      open.set(key, relay)
      batch.push({ key, relay, partition: entry.partition })
    }
    const started = batch.map((b) => b.relay.begin())
    moves.opened += batch.length
    await Promise.all(started)
    // Partitions that went away while the first backfills ran: let their accounts go again.
    for (const b of batch) if (open.get(b.key) === b.relay && (!isMine(b.partition) || !wanted.has(b.key))) await closeAccount(b.key)
  }

  /**
   * Stops accounts: out of their hubs all in this tick (rasa resends a hub's list once for all of them,
   * not once per account), then each waits for its publishes in flight (`closeAccount`).
   */
  const closeAll = (keys: Iterable<string>, graceMs?: number): Promise<void> => {
    const list = [...keys]
    for (const key of list) open.get(key)?.detach()
    return handovers.run(list, (key) => closeAccount(key, graceMs))
  }

  /** Stops an account (checkpoint written after what is in flight), or at once (`graceMs` 0) when its lease may be gone. */
  const closeAccount = async (key: string, graceMs?: number) => {
    const relay = open.get(key)
    if (!relay) return
    open.delete(key)
    // Removed from the bucket (not handed over): its position goes with it.
    await relay.stop(graceMs, !wanted.has(key))
  }

  let reconciling: Promise<void> | undefined
  let again = false
  /** Brings the open accounts in line with the held partitions; one run at a time, run again when something changed meanwhile. */
  const reconcileSoon = () => {
    if (reconciling) {
      again = true
      return
    }
    reconciling = (async () => {
      do {
        again = false
        const stale = [...open.keys()].filter((key) => {
          const entry = wanted.get(key)
          return !entry || !isMine(entry.partition)
        })
        await closeAll(stale)
        const missing = ownedAccounts().filter((key) => !open.has(key))
        for (let i = 0; i < missing.length && !closed && !handingOver; i += CONCURRENCY) await openBatch(missing.slice(i, i + CONCURRENCY))
        // Accounts arriving one by one (keys being added): wait a moment so they open as one batch (one subscribe frame per hub).
        if (again && !closed) await new Promise((resolve) => setTimeout(resolve, 25))
      } while (again && !closed)
    })()
      .catch((error: unknown) => logger.warn({}, `accounts not brought in line: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        reconciling = undefined
        reportMoves()
      })
  }

  // ---- liveness: heartbeat, renewals and the plan, on their own timer ----

  /** A partition's accounts are stopped at once (no more publishing) and it is forgotten. */
  const lose = async (partition: number, why: string) => {
    if (!held.delete(partition)) return
    records.get(partition)?.drop()
    metrics.error('LEASE_LOST')
    moves.lost++
    logger.warn({ partition }, `lost partition ${partition} (${why}); its accounts stopped`)
    await closeAll(byPartition.get(partition) ?? [], 0)
    if (!held.has(partition)) forgetPartition(partition)
  }

  const renew = async (partition: number) => {
    const lease = held.get(partition)
    if (!lease || lease.givingBack) return
    const sent = Date.now()
    const renewal = leases.renew(String(partition), lease.revision)
    lease.renewing = renewal
    const revision = await renewal
    lease.renewing = undefined
    if (held.get(partition) !== lease) return
    if (typeof revision === 'number') {
      lease.revision = revision
      lease.confirmedUntil = sent + leaseTtlMs - fenceMarginMs
      return
    }
    // NATS slow or away: still held as far as anyone knows, until the lease can have run out.
    if (revision === 'unknown') return
    await lose(partition, 'another relay holds it')
  }

  const releasing = new Map<number, Promise<void>>()
  /** Hands a partition over: its accounts stopped (checkpoints written), then its lease given back, only if still ours. One run per partition. */
  const release = (partition: number): Promise<void> => {
    const running = releasing.get(partition)
    if (running) return running
    const lease = held.get(partition)
    if (!lease) return Promise.resolve()
    lease.releasing = true
    // Out of their hubs now, in the tick the release was decided: partitions released together shrink each hub once.
    for (const key of byPartition.get(partition) ?? []) open.get(key)?.detach()
    const run = (async () => {
      // A claim in flight lands first: given back before it, the lease could reach a relay whose claim ours would then overwrite.
      await claiming.get(partition)
      await closeAll(byPartition.get(partition) ?? [])
      // The accounts' last positions written before the lease goes: the next owner resumes there.
      await records.get(partition)?.flush()
      if (held.get(partition) !== lease) return
      // No renewal races the give-back: the one in flight lands first, and none starts after.
      lease.givingBack = true
      await lease.renewing
      held.delete(partition)
      await leases.giveBack(String(partition), lease.revision)
      // Counted when accounts moved with it: an empty partition changing hands is not a handover anyone waits for.
      if ((byPartition.get(partition)?.size ?? 0) > 0) metrics.handoffs++

      moves.handedOver++
      if (!held.has(partition)) forgetPartition(partition)
    })().finally(() => releasing.delete(partition))
    releasing.set(partition, run)
    return run
  }

  const take = async (partition: number) => {
    const sent = Date.now()
    const lease = await leases.take(String(partition))
    if (!lease || closed || handingOver) {
      if (lease) await leases.giveBack(String(partition), lease.revision)
      return
    }
    held.set(partition, { revision: lease.revision, confirmedUntil: sent + leaseTtlMs - fenceMarginMs, releasing: false })
    moves.taken++
    // Its accounts are read beside the liveness timer, with the round's other takes (see readTaken).
    toLoad.add(partition)
    if (lease.from) {
      metrics.takeovers++
      moves.from.set(lease.from, (moves.from.get(lease.from) ?? 0) + 1)
    }
  }

  /**
   * One round. A full one writes the heartbeat and renews every held lease; an early one (a lease or a
   * heartbeat this relay waited for ran out, or the plan changed) only plans and takes (see nextRound).
   */
  const liveness = async (full: boolean) => {
    const started = Date.now()
    if (full) {
      await membership.beat()
      joined = true
    }
    const now = Date.now()
    // Fenced: a partition whose renewal was not confirmed in time stops publishing before anyone else may take it.
    for (const [partition, lease] of held) if (lease.confirmedUntil <= now) await lose(partition, 'renewal not confirmed in time')
    if (full) await runBounded([...held.keys()], renew)
    const renewed = Date.now()
    // Every account in the bucket (its stream's count): a relay reads only its own partitions' keys.
    totalAccounts = await accountsKv
      .status()
      .then((status) => Math.max(0, status.values - misplaced.size))
      .catch(() => totalAccounts)
    const accountsPerPartition = Math.max(1, totalAccounts) / partitions
    const members = membership.live().map((m) => ({
      id: m.id,
      maxPartitions: m.maxAccounts >= Number.MAX_SAFE_INTEGER ? undefined : Math.max(1, Math.floor(m.maxAccounts / accountsPerPartition)),
    }))
    const plan = handingOver ? undefined : assignPartitions(partitions, members, (p) => leases.ownerOf(String(p)))
    const toRelease = [...held.keys()].filter((p) => plan?.owners[p] !== id && !releasing.has(p))
    const toTake: number[] = []
    if (plan) for (let p = 0; p < partitions; p++) if (plan.owners[p] === id && !held.has(p)) toTake.push(p)
    // Handovers run beside the timer (they wait for publishes and checkpoints); takes are quick KV requests.
    for (const p of toRelease) void release(p).then(reconcileSoon)
    const planned = Date.now()
    await runBounded(toTake, take)
    const notTaken = toTake.filter((p) => !held.has(p)).length
    logger.debug({ full, beatMs: now - started, renewMs: renewed - now, planMs: planned - renewed, takeMs: Date.now() - planned, toTake: toTake.length, notTaken, toRelease: toRelease.length }, 'round')
    readTaken()
    if (toTake.length > 0 || toRelease.length > 0) reconcileSoon()
    reportMoves()
    // A relay that stopped beating, or a partition still leased by one: look again the moment it runs out.
    let next = membership.nextExpiry()
    for (const p of toTake) if (!held.has(p)) next = Math.min(next ?? Number.POSITIVE_INFINITY, leases.expiryOf(String(p)) ?? Number.POSITIVE_INFINITY)
    nextExpiry = next
  }
  let nextExpiry: number | undefined
  const reportMoves = () => {
    const { taken, handedOver, lost, opened, from } = moves
    moves = { taken: 0, handedOver: 0, lost: 0, opened: 0, from: new Map() }
    if (from.size > 0) logger.info({ partitions: [...from.values()].reduce((a, b) => a + b, 0), from: Object.fromEntries(from) }, 'took over partitions whose leases expired')
    if (taken > 0 || handedOver > 0 || lost > 0) {
      logger.info({ taken, handedOver, lost, partitions: held.size, owned: open.size, accounts: totalAccounts, instances: membership.live().length }, 'partitions moved')
    }
    if (opened > 0) logger.info({ opened, owned: open.size, accounts: totalAccounts }, 'accounts moved')
  }
  const interval = Math.max(200, Math.floor(leaseTtlMs / 3))
  /** How long before its lease could run out a relay stops publishing for a partition it could not renew: clocks of two machines may differ this much. */
  const fenceMarginMs = Math.min(2_000, Math.floor(leaseTtlMs / 5))
  let timer: ReturnType<typeof setTimeout> | undefined
  let ticking: Promise<void> | undefined
  let soon = false
  /** when the last full round started */
  let lastFull = 0
  /** The next round (see nextRound): full an interval after the last full one, early when something it waits for runs out. */
  const schedule = () => {
    if (closed) return
    const { delay, full } = nextRound({ now: Date.now(), lastFull, interval, soon, wakeAt: nextExpiry })
    soon = false
    timer = setTimeout(() => runTick(full), delay)
  }
  /** Another relay left or gave a lease back: the plan looks at once (after the round under way, if any). */
  const livenessSoon = () => {
    // Before the first round (the watches deliver a drained relay's delete markers at start) there is
    // nothing to hurry: that round plans from everything seen, and a timer set now would run beside it.
    if (closed || handingOver || lastFull === 0) return
    if (ticking) {
      soon = true
      return
    }
    clearTimeout(timer)
    soon = true
    schedule()
  }
  const runTick = (full: boolean) => {
    if (full) lastFull = Date.now()
    ticking = liveness(full)
      .catch((error: unknown) => logger.warn({}, `round failed: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        ticking = undefined
        schedule()
      })
  }
  runTick(true)

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
    handingOver = true
    const handing = open.size
    const started = Date.now()
    logger.info({ accounts: handing, partitions: held.size }, 'drain started: handing accounts over (checkpoints first)')
    // Renewals go on while the accounts are handed over (a drain may take longer than a lease).
    await Promise.all([...held.keys()].map(release))
    await reconciling
    await closeAll(open.keys())
    closed = true
    clearTimeout(timer)
    for (const reread of rereads.values()) clearTimeout(reread)
    await ticking
    clearTimeout(timer)
    // Leaving deletes the heartbeat: the others look again at once (their watch sees it), not at their next round.
    await membership.leave()
    for (const w of watches) w.stop()
    client.close()
    publisher.close()
    logger.info({ handedOver: handing, ms: Date.now() - started }, 'drain finished')
    reportMoves()
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
    owned: () => ownedAccounts().sort(),
    stats: () => ({
      instanceId: id,
      instances: membership.live().length,
      owned: ownedCount(),
      accounts: totalAccounts,
      received: metrics.received,
      published: metrics.published,
      duplicates: metrics.duplicates,
      skipped: metrics.skipped,
      retries: metrics.retries,
      checkpoints: metrics.checkpoints,
      errors: metrics.errors,
      takeovers: metrics.takeovers,
      handoffs: metrics.handoffs,
      bucketEntries: metrics.bucketEntries,
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

/** Runs `job` over `items` at most CONCURRENCY at a time (renewals and takes of up to thousands of partitions). */
async function runBounded<T>(items: readonly T[], job: (item: T) => Promise<void>, limit = CONCURRENCY): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await job(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
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
/**
 * Watches a bucket: every entry first, then each change. Restarted after a NATS reconnect, it resumes
 * after the last revision it delivered, so only what changed meanwhile comes (a restart from zero
 * replayed the whole bucket to every relay on every reconnect: a million entries at 100,000 accounts
 * on 10 relays).
 */
async function follow(kv: KV, onEntry: (e: KvEntry) => void): Promise<{ restart(): Promise<void>; stop(): void }> {
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

export type { NatsConnection }
