import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { repairConfig } from './repairConfig.js'
import { startRelay } from './startRelay.js'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const configOf = (s: SolverSimulator) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })
const address = (i: number) => `0x${(0x5e7000 + i).toString(16).padStart(40, '0')}`

it.skipIf(!natsAvailable)('an unreadable config: a new relay is refused naming repair-config; repair-config finds the partition count from the stored keys while a relay runs, and the refused relay then starts', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const running = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'running', partitions: 48, leaseTtlMs: 3_000 })
  cleanups.push(() => running.close())
  const keys = Array.from({ length: 40 }, (_, i) => accountKey(1, 'beta', address(i)))
  await addAccounts({ servers: nats.url }, keys)
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  const leases = await new Kvm(nc).open('solver_relay_leases')
  const leased = async () => {
    let n = 0
    for await (const _ of await leases.keys('partitions.>')) n++
    return n
  }
  await until(async () => (await leased()) === 48, 'the running relay to lease all 48 partitions')
  await leases.put('config', 'garbage')

  await expect(startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'next' })).rejects.toMatchObject({ code: 'LAYOUT', message: expect.stringContaining('solver-relay repair-config') })
  // A count the keys do not fit is refused, naming a key and where it would be.
  await expect(repairConfig({ servers: nats.url }, { partitions: 1_024 })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: expect.stringMatching(/does not fit the stored keys: "p\d+\.1\.beta\.0x/) })
  expect(await repairConfig({ servers: nats.url })).toEqual({ repaired: true, layout: 3, partitions: 48, evidence: 'the 40 account key(s) and the partitions leased (0 to 47)' })
  expect((await leases.get('config'))?.json()).toEqual({ layout: 3, partitions: 48 })
  // Run again: nothing to repair.
  expect(await repairConfig({ servers: nats.url })).toMatchObject({ repaired: false, partitions: 48 })

  const next = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'next', leaseTtlMs: 3_000 })
  cleanups.push(() => next.close())
  await until(() => next.owned().length > 0 && running.owned().length + next.owned().length === 40, 'the 40 accounts shared by the two relays')
  expect([...running.owned(), ...next.owned()].sort()).toEqual([...keys].sort())
})

