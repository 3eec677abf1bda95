import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { startRelay } from './startRelay.js'

// Credentials that change under a running relay (real nats-server): the server restarted with another
// password for a few seconds, then with the relay's again.

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const SECRET = 'S3cret-pass'
const OTHER = 'An0ther-pass'
const account = (i: number) => `0x${(0xac0000 + i).toString(16).padStart(40, '0')}` as const

it.skipIf(!natsAvailable)('a password changed for a while and restored: the relay reconnects through the auth errors, says why it is not ready meanwhile, and every notification is in JetStream once', async () => {
  const nats = await startNats(['--user', 'relay', '--pass', SECRET])
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  const target = { servers: nats.url, user: 'relay', password: SECRET }
  // The TTL outlasts the outage: this is about reconnecting, not about fencing.
  const relay = await startRelay({ config, nats: { ...target, reconnectTimeWait: 100 } as never, leaseTtlMs: 15_000, instanceId: 'rotating', partitions: 8 })
  cleanups.push(() => relay.close())
  const keys = [0, 1, 2].map((i) => accountKey(1, 'beta', account(i)))
  await addAccounts(target, keys)
  await until(() => relay.owned().length === 3, 'the relay to own the 3 accounts')
  for (const i of [0, 1, 2]) await sim.waitForSubscribers(account(i))
  let sent = 0
  for (const i of [0, 1, 2]) sent += (await sim.instantOpen(account(i))).frames.length
  await until(() => relay.stats().published === sent, 'the first notifications published')

  // Another password: the relay is refused at every reconnect (nats.js gives up after two by default).
  await nats.restart({ args: ['--user', 'relay', '--pass', OTHER] })
  await until(async () => (await relay.ready()).reason?.includes('credentials') === true, 'readiness to name the refused credentials', 10_000)
  const during = await relay.ready()
  expect(during.ready).toBe(false)
  expect(during.reason).not.toContain(SECRET)
  for (const i of [0, 1, 2]) sent += (await sim.instantOpen(account(i))).frames.length
  expect(await relay.registry.metrics()).toMatch(/^solver_relay_nats_auth_errors_total [1-9]/m)

  // Restored: the relay reconnects by itself and publishes what it held.
  await nats.restart({ args: ['--user', 'relay', '--pass', SECRET] })
  await until(async () => (await relay.ready()).ready, 'the relay ready again', 20_000)
  for (const i of [0, 1, 2]) sent += (await sim.instantOpen(account(i))).frames.length
  const nc = await connect({ servers: nats.url, user: 'relay', pass: SECRET })
  cleanups.push(() => nc.close())
  const jsm = await jetstreamManager(nc)
  await until(async () => (await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.messages === sent, `JetStream to hold all ${sent} notifications`, 20_000)
  expect((await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.messages).toBe(sent)
  expect(relay.stats().published).toBeGreaterThanOrEqual(sent)
}, 90_000)
