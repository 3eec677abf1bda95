import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { repairConfig } from './repairConfig.js'
import { type Relay, startRelay } from './startRelay.js'

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
  // A count the live relays do not run with is refused, naming theirs.
  await expect(repairConfig({ servers: nats.url }, { partitions: 1_024 })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('disagrees with the live relays, which run with 48 partitions') })
  expect(await repairConfig({ servers: nats.url })).toEqual({ repaired: true, layout: 3, partitions: 48, evidence: "the live relays' heartbeats and the 40 account key(s)" })
  expect((await leases.get('config'))?.json()).toEqual({ layout: 3, partitions: 48 })
  // Run again: nothing to repair.
  expect(await repairConfig({ servers: nats.url })).toMatchObject({ repaired: false, partitions: 48 })

  const next = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'next', leaseTtlMs: 3_000 })
  cleanups.push(() => next.close())
  await until(() => next.owned().length > 0 && running.owned().length + next.owned().length === 40, 'the 40 accounts shared by the two relays')
  expect([...running.owned(), ...next.owned()].sort()).toEqual([...keys].sort())
})


it.skipIf(!natsAvailable)('a deployment without accounts: the live relays decide the count, and a --partitions that disagrees with them is refused (it used to write it, and accounts added later were owned by nobody)', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const relays: Relay[] = []
  for (const instanceId of ['empty-a', 'empty-b']) {
    const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId, partitions: 32, leaseTtlMs: 3_000 })
    cleanups.push(() => relay.close())
    relays.push(relay)
  }
  await until(async () => (await Promise.all(relays.map((r) => r.ready()))).every((r) => r.ready), 'both relays ready')
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  const leases = await new Kvm(nc).open('solver_relay_leases')
  await leases.put('config', 'garbage')
  await expect(repairConfig({ servers: nats.url }, { partitions: 16 })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('disagrees with the live relays, which run with 32 partitions') })
  expect((await leases.get('config'))?.string()).toBe('garbage')
  expect(await repairConfig({ servers: nats.url })).toEqual({ repaired: true, layout: 3, partitions: 32, evidence: "the live relays' heartbeats" })
  // Accounts added now are owned by the two relays, all of them.
  const third = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'empty-c', leaseTtlMs: 3_000 })
  cleanups.push(() => third.close())
  const keys = Array.from({ length: 30 }, (_, i) => accountKey(1, 'beta', address(500 + i)))
  await addAccounts({ servers: nats.url }, keys)
  await until(() => [...relays, third].reduce((n, r) => n + r.owned().length, 0) === 30, 'all 30 accounts owned')
})
