import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { listAccounts } from './accountsAdmin.js'
import { parseStoredKey } from './deployment.js'
import { migrateDeployment } from './migrate.js'
import { recordKey } from './PartitionCheckpoint.js'
import { partitionOf } from './partitions.js'
import { startRelay } from './startRelay.js'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const configOf = (s: SolverSimulator) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })
const address = (i: number) => `0x${(0x3a9000 + i).toString(16).padStart(40, '0')}`

it.skipIf(!natsAvailable)('an older deployment: a new relay refuses it (LAYOUT, run migrate); migrate refuses while a relay lives; after it every account is under its partition, checkpoints kept, and the relay owns them all', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  const kvm = new Kvm(nc)
  const [accounts, leases, checkpoints] = await Promise.all(['solver_relay_accounts', 'solver_relay_leases', 'solver_relay_checkpoints'].map((b) => kvm.create(b, { history: 1 })))
  // What a relay of layout 2 left: bare account keys, its config, a checkpoint, and a stale per-account lease of layout 1.
  const keys = Array.from({ length: 30 }, (_, i) => accountKey(1, 'beta', address(i)))
  for (const key of keys) await accounts!.put(key, '{}')
  await leases!.put('config', JSON.stringify({ layout: 2, partitions: 64 }))
  await leases!.put(`leases.${keys[0]}`, JSON.stringify({ owner: 'old', expires: Date.now() - 1 }))
  const since = Math.floor(Date.now() / 1000) - 60
  await checkpoints!.put(keys[1]!, JSON.stringify({ since, ids: [] }))
  // The checkpoint of an account removed long ago (the older layouts kept it): not carried over.
  const removed = accountKey(1, 'beta', address(99))
  await checkpoints!.put(removed, JSON.stringify({ since, ids: [] }))

  await expect(startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'new' })).rejects.toMatchObject({ code: 'LAYOUT', message: expect.stringContaining('solver-relay migrate') })
  await expect(listAccounts({ servers: nats.url })).rejects.toMatchObject({ code: 'LAYOUT' })

  // An old relay still alive: migrate waits for the drain.
  await leases!.put('instances.old', JSON.stringify({ expires: Date.now() + 60_000, maxAccounts: 10 }))
  await expect(migrateDeployment({ servers: nats.url })).rejects.toMatchObject({ code: 'LAYOUT', message: expect.stringContaining('old') })
  await leases!.delete('instances.old')

  expect(await migrateDeployment({ servers: nats.url })).toEqual({ moved: 30, partitions: 64, layout: 3 })
  // Again: nothing left to move.
  expect(await migrateDeployment({ servers: nats.url })).toMatchObject({ moved: 0 })
  const stored: string[] = []
  for await (const key of await accounts!.keys()) stored.push(key)
  expect(stored.map((k) => parseStoredKey(k)?.key).sort()).toEqual([...keys].sort())
  expect(await listAccounts({ servers: nats.url })).toEqual([...keys].sort())
  // The checkpoint moved into its partition's record; the old key is gone.
  expect((await checkpoints!.get(recordKey(partitionOf(keys[1]!, 64))))?.json<{ accounts: unknown }>().accounts).toEqual({ [keys[1]!]: { since, ids: [] } })
  expect(await checkpoints!.get(keys[1]!)).toBeNull()
  expect((await checkpoints!.get(recordKey(partitionOf(removed, 64))))?.json<{ accounts: Record<string, unknown> }>().accounts?.[removed]).toBeUndefined()
  expect(await checkpoints!.get(removed)).toBeNull()

  const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, instanceId: 'new' })
  cleanups.push(() => relay.close())
  const deadline = Date.now() + 20_000
  while (relay.owned().length < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
  expect(relay.owned()).toEqual([...keys].sort())
  expect(relay.stats().accounts).toBe(30)
})
