import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { startRelay } from './startRelay.js'

// A relay that cannot do its job says so (real nats-server with users): one whose NATS user may not write
// the checkpoints bucket, or the partition leases, is not ready, names the permission, and its
// partitions go to the other relay (publishes: faults.test.ts).

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const address = (i: number) => `0x${(0xbe0000 + i).toString(16).padStart(40, '0')}`

it.skipIf(!natsAvailable).each([
  { what: 'the checkpoints bucket', deny: '$KV.solver_relay_checkpoints.>', operation: 'write checkpoints', reason: /checkpoints/ },
  { what: "the leases bucket's partition leases", deny: '$KV.solver_relay_leases.partitions.>', operation: 'write leases', reason: /leases/ },
])('no write access to $what: not ready with the permission named, and every account goes to the relay that can, without a line a partition a round', async ({ deny, operation, reason }) => {
  const file = join(mkdtempSync(join(tmpdir(), 'relay-perm-')), 'nats.conf')
  writeFileSync(file, `authorization { users = [ { user: limited, password: limited-pass, permissions: { publish: { deny: ["${deny}"] } } }, { user: admin, password: admin-pass } ] }\n`)
  const nats = await startNats(['-c', file])
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  const admin = { servers: nats.url, user: 'admin', password: 'admin-pass' }
  const able = await startRelay({ config, nats: admin, leaseTtlMs: 1_500, instanceId: 'able', partitions: 16 })
  cleanups.push(() => able.close())
  const lines: string[] = []
  const limited = await startRelay({ config, nats: { servers: nats.url, user: 'limited', password: 'limited-pass' }, leaseTtlMs: 1_500, instanceId: 'limited', partitions: 16, log: (line) => lines.push(line) })
  cleanups.push(() => limited.close())
  await addAccounts(admin, Array.from({ length: 40 }, (_, i) => accountKey(1, 'beta', address(i))))
  await until(async () => (await limited.ready()).reason?.includes('permission') === true, `the limited relay to say it may not ${operation}`, 20_000)
  const readiness = await limited.ready()
  expect(readiness.ready).toBe(false)
  expect(readiness.reason).toMatch(reason)
  await until(() => able.owned().length === 40 && limited.owned().length === 0, 'every account with the relay that can write checkpoints', 20_000)
  // Steady: nothing planned back to the limited relay, and no line a partition a round.
  const before = lines.length
  // A few rounds: the able relay renews its 16 leases each round (counted in the leases bucket's stream,
  // whatever the machine's speed; checkpoint writes stop once nothing moves).
  const nc = await connect({ servers: nats.url, user: 'admin', pass: 'admin-pass' })
  cleanups.push(() => nc.close())
  const jsm = await jetstreamManager(nc)
  const renewals = async () => (await jsm.streams.info('KV_solver_relay_leases')).state.last_seq
  const from = await renewals()
  await until(async () => (await renewals()) >= from + 3 * 16, 'three rounds of lease renewals', 30_000)
  expect(limited.owned()).toEqual([])
  // A round's own summary line aside, at most one aggregated line a second: none per partition.
  const news = lines.slice(before).filter((line) => !line.startsWith('round '))
  expect(news.length, news.join('\n')).toBeLessThanOrEqual(3)
  expect(await limited.registry.metrics()).toContain(`solver_relay_permission_denied{operation="${operation}"} 1`)
}, 60_000)
