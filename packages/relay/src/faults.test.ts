import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { startNatsProxy } from '../test/natsProxy.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { type Relay, startRelay } from './startRelay.js'

// The relay when NATS misbehaves (real nats-server): each case failed before its fix.

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const address = (i: number) => `0x${(0xfa0000 + i).toString(16).padStart(40, '0')}`
const configOf = (s: SolverSimulator) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })

/** Samples every relay's owned accounts until `stop`; returns each account owned by two at once, with when. */
function watchOverlaps(relays: Relay[]) {
  const overlaps: string[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const seen = new Map<string, number>()
      for (const [i, r] of relays.entries()) for (const key of r.owned()) {
        if (seen.has(key)) overlaps.push(`${key} owned by relays ${seen.get(key)} and ${i} at ${new Date().toISOString()}`)
        seen.set(key, i)
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  return {
    overlaps,
    stop: async () => {
      running = false
      await loop
    },
  }
}

describe.each(['blackhole', 'refuse'] as const)('a relay cut off from NATS (%s)', (mode) => {
  it.skipIf(!natsAvailable)('stops its accounts before its leases can run out (a local, timed fence), the other takes them, never both; healed, they share again', async () => {
    const nats = await startNats()
    cleanups.push(() => nats.close())
    const proxy = await startNatsProxy(nats)
    cleanups.push(() => proxy.close())
    const sim = await startSolverSimulator({ protocol: 'rasa' })
    cleanups.push(() => sim.close())
    const leaseTtlMs = 3_000
    const cutOff = await startRelay({ config: configOf(sim), nats: { servers: proxy.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 } as never, leaseTtlMs, instanceId: 'cut-off', partitions: 32 })
    cleanups.push(() => cutOff.close())
    const other = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs, instanceId: 'reachable', partitions: 32 })
    cleanups.push(() => other.close())
    const keys = Array.from({ length: 60 }, (_, i) => accountKey(1, 'beta', address(i)))
    await addAccounts({ servers: nats.url }, keys)
    await until(() => cutOff.owned().length + other.owned().length === 60 && cutOff.owned().length > 0, 'all 60 accounts owned, some by the relay to cut off')
    const overlaps = watchOverlaps([cutOff, other])
    proxy.cut(mode)
    // The reachable relay takes everything once the cut-off relay's leases run out.
    await until(() => other.owned().length === 60, 'the reachable relay to own all 60', 20_000)
    expect(cutOff.owned()).toEqual([])
    proxy.heal()
    await until(() => cutOff.owned().length > 0 && cutOff.owned().length + other.owned().length === 60, 'the healed relay to own its share again', 30_000)
    await overlaps.stop()
    expect(overlaps.overlaps).toEqual([])
  }, 90_000)
})

it.skipIf(!natsAvailable)('changing --lease-ttl-ms on a running deployment (as the README says: start relays with the new TTL, then drain the old ones): no lease judged garbage, none stolen, never owned twice', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  // The old TTL is long (35 s), the new one short (1.5 s): a relay judging leases by its own TTL saw the
  // old relay's healthy leases as expiring "from the future" (beyond its TTL + 30 s) and took them.
  const old = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 35_000, instanceId: 'ttl-old', partitions: 16 })
  cleanups.push(() => old.close())
  const keys = Array.from({ length: 40 }, (_, i) => accountKey(1, 'beta', address(100 + i)))
  await addAccounts({ servers: nats.url }, keys)
  await until(() => old.owned().length === 40, 'the old relay to own all 40')
  const renewed = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, instanceId: 'ttl-new', partitions: 16 })
  cleanups.push(() => renewed.close())
  const overlaps = watchOverlaps([old, renewed])
  // The old relay hands the new one its share at its next full round (a third of its TTL).
  await until(() => renewed.owned().length > 0 && old.owned().length + renewed.owned().length === 40, 'the new relay to get its share by handover', 30_000)
  expect(renewed.stats().takeovers).toBe(0)
  await old.close()
  await until(() => renewed.owned().length === 40, 'the new relay to own all 40 after the old one drained', 20_000)
  await overlaps.stop()
  expect(overlaps.overlaps).toEqual([])
  expect(renewed.stats().errors).toBe(0)
  expect(await renewed.registry.getSingleMetricAsString('solver_relay_garbage_leases_total')).toMatch(/solver_relay_garbage_leases_total 0$/m)
}, 90_000)

it.skipIf(!natsAvailable)('a relay started and closed in a process leaves nothing behind (the process metrics are collected once per process)', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const { execFile } = await import('node:child_process')
  const { fileURLToPath } = await import('node:url')
  const script = fileURLToPath(new URL('../test/relayLeak.ts', import.meta.url))
  // Not spawnSync: a worker blocked for over a minute misses vitest's replies and fails the run.
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const args = ['--expose-gc', '--conditions=@solver-notifications/source', '--import', 'tsx', script, nats.url, '4']
    execFile(process.execPath, args, { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
  expect(run.status, run.stderr).toBe(0)
  const { alive } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { alive: Record<string, number> }
  // Every relay closed stayed alive (prom-client's GC observer, started per relay and never stopped,
  // held its registry, whose collectors hold the coordinator, the client and both NATS connections).
  expect(alive).toEqual({ Coordinator: 0, RelayMetrics: 0, NatsConnectionImpl: 0 })
}, 150_000)

it.skipIf(!natsAvailable)('a drain while accounts open: the heartbeat goes before the leases (the others plan without it at once), what it opens is let go at once, and the other relay owns everything', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const leaseTtlMs = 3_000
  const staying = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs, instanceId: 'staying', partitions: 16 })
  cleanups.push(() => staying.close())
  const leaving = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs, instanceId: 'leaving', partitions: 16 })
  cleanups.push(() => leaving.close())
  // Every first backfill waits: the accounts are still being opened when the drain starts.
  const hold = sim.holdHttpAnswers()
  cleanups.push(() => hold.release())
  const { connect } = await import('@nats-io/transport-node')
  const { Kvm } = await import('@nats-io/kv')
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  const leases = await new Kvm(nc).open('solver_relay_leases')
  const deletes: string[] = []
  const watch = await leases.watch({ include: 'updates' as never })
  cleanups.push(() => watch.stop())
  void (async () => {
    for await (const e of watch) if (e.operation !== 'PUT') deletes.push(e.key)
  })()
  const keys = Array.from({ length: 300 }, (_, i) => accountKey(1, 'beta', address(1_000 + i)))
  await addAccounts({ servers: nats.url }, keys)
  await until(() => leaving.owned().length > 0 && leaving.owned().length + staying.owned().length === 300, 'both relays to own their share')
  await hold.held(1)
  // Deletes before the drain are the rebalance that gave the leaving relay its share.
  await until(() => deletes.length > 0, 'the rebalance handovers')
  const mark = deletes.length
  await leaving.close()
  await until(() => staying.owned().length === 300, 'the staying relay to own all 300')
  // The heartbeat was deleted before any lease the drain gave back (it used to go last, after a wait
  // of up to 10 s per batch for first backfills the drain had cancelled).
  const drained = deletes.slice(mark)
  const heartbeat = drained.indexOf('instances.leaving')
  const firstLease = drained.findIndex((key) => key.startsWith('partitions.'))
  expect(heartbeat).toBeGreaterThanOrEqual(0)
  expect(firstLease).toBeGreaterThan(heartbeat)
})

describe('JetStream refusing publishes is a PUBLISH error with its cause', () => {
  const publishOne = async (sim: SolverSimulator, account: string, n: number) => {
    for (let i = 0; i < n; i++) await sim.publish({ id: `p-${i}`, quote_id: 900 + i, temp_quote_id: -(900 + i), modify_time: sim.tick(), counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' })
  }

  it.skipIf(!natsAvailable)('a full stream (discard new): counted by cause, and the log names it', async () => {
    const nats = await startNats()
    cleanups.push(() => nats.close())
    const sim = await startSolverSimulator({ protocol: 'rasa' })
    cleanups.push(() => sim.close())
    const { connect } = await import('@nats-io/transport-node')
    const { jetstreamManager } = await import('@nats-io/jetstream')
    const nc = await connect({ servers: nats.url })
    cleanups.push(() => nc.close())
    // The operator's stream, limited: it refuses new messages past 2.
    await (await jetstreamManager(nc)).streams.add({ name: 'SOLVER_NOTIFICATIONS', subjects: ['solver.notifications.>'], max_msgs: 2, discard: 'new' as never })
    const lines: string[] = []
    const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 3_000, instanceId: 'full', partitions: 4, log: (line) => lines.push(line) })
    cleanups.push(() => relay.close())
    await addAccounts({ servers: nats.url }, [accountKey(1, 'beta', address(5_000))])
    await until(() => relay.owned().length === 1, 'the account owned')
    await sim.waitForSubscribers(address(5_000))
    await publishOne(sim, address(5_000), 5)
    await until(async () => /solver_relay_publish_failures_total\{cause="stream-full"\} [1-9]/.test(await relay.registry.metrics()), 'a publish refused as stream-full')
    const text = await relay.registry.metrics()
    expect(text).toMatch(/solver_relay_errors_total\{code="PUBLISH"\} [1-9]/)
    expect(lines.some((line) => /maximum messages/.test(line))).toBe(true)
  })

  it.skipIf(!natsAvailable)("a publish the relay's NATS user may not make: counted as permission, the log names PermissionViolation (not a timeout); the relay is not ready and withdraws", async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const file = join(mkdtempSync(join(tmpdir(), 'relay-perm-')), 'nats.conf')
    writeFileSync(
      file,
      `authorization { users = [ { user: relay, password: relay-pass, permissions: { publish: { deny: ["solver.notifications.>"] } } }, { user: admin, password: admin-pass } ] }\n`,
    )
    const nats = await startNats(['-c', file])
    cleanups.push(() => nats.close())
    const sim = await startSolverSimulator({ protocol: 'rasa' })
    cleanups.push(() => sim.close())
    const lines: string[] = []
    const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url, user: 'relay', password: 'relay-pass' }, leaseTtlMs: 3_000, instanceId: 'denied', partitions: 4, log: (line) => lines.push(line) })
    cleanups.push(() => relay.close())
    await addAccounts({ servers: nats.url, user: 'admin', password: 'admin-pass' }, [accountKey(1, 'beta', address(6_000))])
    await until(() => relay.owned().length === 1, 'the account owned')
    await sim.waitForSubscribers(address(6_000))
    await publishOne(sim, address(6_000), 1)
    await until(async () => /solver_relay_publish_failures_total\{cause="permission"\} [1-9]/.test(await relay.registry.metrics()), 'a publish refused for permission', 15_000)
    expect(await relay.registry.metrics()).toMatch(/solver_relay_errors_total\{code="PUBLISH"\} [1-9]/)
    expect(lines.some((line) => /Permissions Violation/i.test(line))).toBe(true)
    // It cannot do its job: not ready, the permission named, withdrawn (another relay would own the account).
    const readiness = await relay.ready()
    expect(readiness.ready).toBe(false)
    expect(readiness.reason).toMatch(/publish to solver\.notifications\.>/)
    expect(await relay.registry.metrics()).toContain('solver_relay_permission_denied{operation="publish to solver.notifications.>"} 1')
  })
})

it.skipIf(!natsAvailable)('NATS loses its storage (restarted empty): the relays notice, recreate their buckets, and own every account the operator adds again, without a restart; what is published reaches JetStream', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const lines: string[] = []
  const relays: Relay[] = []
  for (const instanceId of ['volume-a', 'volume-b']) {
    const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 } as never, leaseTtlMs: 3_000, instanceId, partitions: 16, log: (line) => lines.push(`${instanceId}: ${line}`) })
    cleanups.push(() => relay.close())
    relays.push(relay)
  }
  const keys = Array.from({ length: 40 }, (_, i) => accountKey(1, 'beta', address(2_000 + i)))
  await addAccounts({ servers: nats.url }, keys)
  const owned = () => relays.reduce((n, r) => n + r.owned().length, 0)
  await until(() => owned() === 40, 'all 40 owned before the loss')
  await nats.restart({ empty: true })
  // The relays notice, recreate their buckets and write the deployment's config again (an operator's tool
  // arriving first takes the count the relays' heartbeats announce); then the operator re-adds the accounts.
  const { connect } = await import('@nats-io/transport-node')
  const { Kvm } = await import('@nats-io/kv')
  await until(async () => {
    const nc = await connect({ servers: nats.url }).catch(() => undefined)
    if (!nc) return false
    try {
      const config = await (await new Kvm(nc).open('solver_relay_leases')).get('config')
      return config?.operation === 'PUT' && config.json<{ partitions: number }>().partitions === 16
    } catch {
      return false
    } finally {
      await nc.close()
    }
  }, 'the relays to recreate their buckets and the config', 30_000).catch((e) => {
    console.log(lines.filter((l) => !l.includes(' round ') && !l.includes('publish failed')).slice(-60).join('\n'))
    throw e
  })
  await until(async () => {
    try {
      await addAccounts({ servers: nats.url }, keys)
      return true
    } catch {
      return false
    }
  }, 'the accounts re-added')
  await until(() => owned() === 40 && relays.every((r) => r.owned().length > 0), 'every account owned again, by both relays', 30_000).catch((e) => {
    console.log(relays.map((r) => r.owned().length), lines.filter((l) => !l.includes(' round ')).join('\n'))
    throw e
  })
  // Said once per bucket and relay, with a metric.
  expect(lines.filter((line) => /bucket solver_relay_leases was gone|bucket solver_relay_leases counts from/.test(line)).length).toBeGreaterThanOrEqual(1)
  const metrics = await relays[0]!.registry.metrics()
  expect(metrics).toMatch(/solver_relay_bucket_resets_total\{bucket="solver_relay_(leases|accounts)"\} [1-9]/)
  // What is published now reaches JetStream.
  const { observe } = await import('../test/cluster.js')
  const observer = await observe(nats.url)
  cleanups.push(() => observer.close())
  await sim.waitForSubscribers(address(2_000))
  await sim.publish({ id: 'after-the-loss', quote_id: 77, temp_quote_id: -77, modify_time: sim.tick(), counterparty_address: address(2_000), last_seen_action: 'InstantRFQ', action_status: 'success' })
  await until(async () => (await observer.messages()).some((m) => m.body.id === 'after-the-loss'), 'the notification in JetStream', 20_000)
}, 120_000)

it.skipIf(!natsAvailable)('a blip whose retries all succeed (NATS restarted under load): no PUBLISH error, retries counted by cause, and the failed publishes are a few aggregated lines, not one per message', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const lines: string[] = []
  const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 } as never, leaseTtlMs: 15_000, instanceId: 'blip', partitions: 4, log: (line) => lines.push(line) })
  cleanups.push(() => relay.close())
  const accounts = Array.from({ length: 4 }, (_, i) => address(7_000 + i))
  await addAccounts({ servers: nats.url }, accounts.map((a) => accountKey(1, 'beta', a)))
  await until(() => relay.owned().length === 4, 'the 4 accounts owned')
  for (const a of accounts) await sim.waitForSubscribers(a)
  let sent = 0
  const restarting = nats.restart()
  // Published while NATS is away and coming back: every one is retried until stored.
  for (let round = 0; round < 5; round++) for (const a of accounts) sent += (await sim.instantOpen(a)).frames.length
  await restarting
  for (const a of accounts) sent += (await sim.instantOpen(a)).frames.length
  await until(() => relay.stats().published >= sent, `the ${sent} notifications published`)
  const text = await relay.registry.metrics()
  expect(text).toMatch(/^solver_relay_errors_total\{code="PUBLISH"\} 0$/m)
  expect(relay.stats().retries).toBeGreaterThan(0)
  expect(text).toMatch(/^solver_relay_publish_retries_total\{cause="[a-z-]+"\} [1-9]/m)
  const failed = lines.filter((l) => l.includes('publish failed') || l.startsWith('publishes failed'))
  expect(failed.length).toBeLessThanOrEqual(10)
  expect(relay.stats().retries).toBeGreaterThan(failed.length)
}, 60_000)
