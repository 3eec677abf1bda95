import { afterEach, expect, it } from 'vitest'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts, removeAccounts } from './accountsAdmin.js'
import { startRelay } from './startRelay.js'

// Capacity that adds up (real nats-server): the accounts counted are the live keys, so relays whose
// maxAccounts together cover them own every one.

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const address = (i: number) => `0x${(0xca0000 + i).toString(16).padStart(40, '0')}`

it.skipIf(!natsAvailable)('accounts removed leave delete markers in the bucket: they are not counted, and relays with room for the live ones own all of them', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  const keys = Array.from({ length: 1_000 }, (_, i) => accountKey(1, 'beta', address(i)))
  await addAccounts({ servers: nats.url }, keys)
  // 600 removed: 400 live accounts, 1,000 entries in the bucket's stream (400 values, 600 delete markers).
  await removeAccounts({ servers: nats.url }, keys.slice(400))
  // Room for 500 together: enough for the 400 live ones (the marker-counted 1,000 gave each 8 of 32 partitions).
  const relays = await Promise.all(['cap-a', 'cap-b'].map((instanceId) => startRelay({ config, nats: { servers: nats.url }, leaseTtlMs: 1_500, instanceId, partitions: 32, maxAccounts: 250 })))
  for (const r of relays) cleanups.push(() => r.close())
  await until(() => relays.reduce((n, r) => n + r.owned().length, 0) === 400, 'the 400 live accounts owned', 20_000)
  for (const r of relays) {
    expect(r.stats().accounts).toBe(400)
    expect(r.owned().length).toBeLessThanOrEqual(250)
    expect(await r.registry.metrics()).toMatch(/^solver_relay_accounts 400$/m)
  }
}, 60_000)
