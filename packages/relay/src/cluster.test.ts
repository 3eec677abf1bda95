import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { replicasCurrent, startCluster } from '../test/natsCluster.js'
import { natsAvailable } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { checkRelaySetup } from './checkRelaySetup.js'
import { ACCOUNTS_BUCKET, CHECKPOINTS_BUCKET, LEASES_BUCKET } from './relayStorage.js'
import { type Relay, startRelay } from './startRelay.js'

// The relay on the NATS production runs: a three-node JetStream cluster on loopback (real nats-servers,
// routes, a store each), the stream and buckets replicated three times.

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const address = (i: number) => `0x${(0xc10000 + i).toString(16).padStart(40, '0')}` as const
const STREAMS = ['SOLVER_NOTIFICATIONS', ...[ACCOUNTS_BUCKET, LEASES_BUCKET, CHECKPOINTS_BUCKET].map((b) => `KV_${b}`)]

it.skipIf(!natsAvailable)('check --replicas 3 creates the stream and buckets with three replicas; on a deployment made with one it says what differs', async () => {
  const cluster = await startCluster(3)
  cleanups.push(() => cluster.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  const made = await checkRelaySetup({ config, nats: { servers: cluster.servers }, replicas: 3 })
  expect(made).toContain('replicas: 3 for the stream and every bucket, as asked')
  const nc = await connect({ servers: cluster.servers })
  cleanups.push(() => nc.close())
  const jsm = await jetstreamManager(nc)
  for (const stream of STREAMS) expect((await jsm.streams.info(stream)).config.num_replicas, stream).toBe(3)
  // Another stream name made with one replica: check names it and what changes it.
  await checkRelaySetup({ config, nats: { servers: cluster.servers }, stream: 'ONE_COPY', subjectPrefix: 'one.copy' })
  const lines = await checkRelaySetup({ config, nats: { servers: cluster.servers }, stream: 'ONE_COPY', subjectPrefix: 'one.copy', replicas: 3 })
  expect(lines).toContain('stream ONE_COPY: 1 replica(s), asked 3: it keeps 1 (nats stream edit ONE_COPY --replicas 3 changes it)')
  await expect(checkRelaySetup({ config, nats: { servers: cluster.servers }, replicas: 7 })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS' })
}, 60_000)

it.skipIf(!natsAvailable)('each node killed and restarted in turn under load (the stream leader first): every notification in JetStream once, never two owners, no bucket reset, every account owned again', async () => {
  const cluster = await startCluster(3)
  cleanups.push(() => cluster.close())
  // enigma: its history keeps every transition, so what moves between relays meanwhile (a partition
  // handed over as the plan settles) is recovered by backfill; rasa's latest-state history is the
  // relay README's "handovers" limit, not the cluster's.
  const sim = await startSolverSimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'alpha', solvers: { alpha: { notifications: { protocol: 'enigma' as const, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } } }
  // The default TTL: a node's absence and the elections it causes take a few seconds, well within it.
  const leaseTtlMs = 15_000
  const relays: Relay[] = []
  const logs: string[] = []
  for (const [i, first] of [0, 1].entries()) {
    // Each relay prefers another node (the list in its order): a killed node is some relay's own.
    const servers = [...cluster.servers.slice(first), ...cluster.servers.slice(0, first)]
    const relay = await startRelay({ config, nats: { servers }, replicas: 3, leaseTtlMs, partitions: 16, instanceId: `cluster-${i}`, log: (line) => logs.push(`${new Date().toISOString().slice(11, 23)} r${i} ${line}`) })
    relays.push(relay)
    cleanups.push(() => relay.close())
  }
  const accounts = Array.from({ length: 24 }, (_, i) => address(i))
  await addAccounts({ servers: cluster.servers }, accounts.map((a) => accountKey(1, 'alpha', a)))
  // Settled: the second relay has its half before the nodes go.
  const partitionsOwned = async (r: Relay) => Number(/^solver_relay_partitions_owned (\d+)$/m.exec(await r.registry.metrics())?.[1])
  // (A newcomer claims up to the mean less one: 7 or 8 of 16.)
  const settled = async () => {
    const held = await Promise.all(relays.map(partitionsOwned))
    return held.every((n) => n >= 7) && held[0]! + held[1]! === 16 && relays.reduce((n, r) => n + r.owned().length, 0) === accounts.length
  }
  await until(settled, 'every account owned, half the partitions each', 30_000).catch(async (e: Error) => {
    throw new Error(`${e.message}: partitions ${JSON.stringify(await Promise.all(relays.map(partitionsOwned)))}, accounts ${relays.map((r) => r.owned().length)}`)
  })
  for (const a of accounts) await sim.waitForSubscribers(a)

  // Two owners at once, sampled all along.
  const overlaps: string[] = []
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      const seen = new Set<string>()
      for (const r of relays) for (const key of r.owned()) {
        if (seen.has(key)) overlaps.push(key)
        seen.add(key)
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  // Load: a lifecycle on some account every few milliseconds, for as long as nodes go and come.
  let sent = 0
  let loading = true
  const load = (async () => {
    for (let i = 0; loading; i++) {
      sent += (await sim.instantOpen(accounts[i % accounts.length]!)).frames.length
      await new Promise((resolve) => setTimeout(resolve, 15))
    }
  })()

  const nc = await connect({ servers: cluster.servers })
  cleanups.push(() => nc.close())
  const jsm = await jetstreamManager(nc)
  const leaderOf = async (stream: string) => (await jsm.streams.info(stream)).cluster?.leader
  const streamLeader = await leaderOf('SOLVER_NOTIFICATIONS')
  const order = [...cluster.nodes].sort((a, b) => (a.name === streamLeader ? -1 : b.name === streamLeader ? 1 : 0))
  for (const node of order) {
    await node.kill()
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    await node.start()
    // Back: its replicas catch up before the next node goes (what an operator's rolling restart waits for).
    await until(() => replicasCurrent(jsm, STREAMS), `the replicas of ${node.name} current again`, 30_000)
  }
  loading = false
  await load
  await until(() => relays.reduce((n, r) => n + r.owned().length, 0) === accounts.length, 'every account owned again', 30_000).catch(async (e: Error) => {
    const told = logs.filter((l) => !/publish failed|checkpoints not written/.test(l)).slice(-60)
    throw new Error(`${e.message}: accounts ${relays.map((r) => r.owned().length)}, partitions ${JSON.stringify(await Promise.all(relays.map(partitionsOwned)))}\n${told.join('\n')}`)
  })
  await until(async () => (await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.messages >= sent, `JetStream to hold the ${sent} notifications`, 30_000).catch(async (error: Error) => {
    const held = (await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.messages
    const metrics = await Promise.all(relays.map((r) => r.registry.metrics()))
    const lines = metrics.flatMap((m) => m.split('\n').filter((l) => /^solver_relay_(errors|bucket_resets|publish_failures|lease_takeovers|notifications)_total/.test(l) && !/ 0$/.test(l)))
    const told = logs.filter((l) => !/published|accounts moved|partitions moved|round/.test(l)).slice(-80)
    throw new Error(`${error.message}: ${held} held; ${JSON.stringify(relays.map((r) => r.stats()))}; ${lines.join('; ')}\n${told.join('\n')}`)
  })
  sampling = false
  await sampler
  expect((await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.messages).toBe(sent)
  expect(overlaps).toEqual([])
  for (const r of relays) {
    const text = await r.registry.metrics()
    // No false reset. A lease may be fenced here: when the killed node led the buckets' streams, an
    // election kept NATS from answering for 10–30 s on this machine kind (publish acks that long), past
    // the fence; a renewal not confirmed in time must stop the relay, and what is asserted is what that
    // protects: never two owners, every notification once, every account owned again.
    expect(text).not.toMatch(/^solver_relay_bucket_resets_total\{[^}]*\} [1-9]/m)
  }
}, 240_000)
