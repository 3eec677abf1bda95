import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { recordKey } from './PartitionCheckpoint.js'
import { type Relay, startRelay } from './startRelay.js'

// Reads of the accounts bucket fail midway on demand: part of the answer, then an error (NATS gone
// mid-read). The real read runs underneath, against a real nats-server.
const control = vi.hoisted(() => ({
  failing: false,
  failed: 0,
  /** Reads held on demand, the next reads to start in order: each `at` entries in, until the test lets it go on. */
  holds: [] as Array<{ at: number; reached: boolean; go: () => void; gate: Promise<void> }>,
  /** every hold made, let go after each test */
  made: [] as Array<{ go: () => void }>,
}))
vi.mock('./readBucket.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('./readBucket.js')>()
  return {
    ...real,
    readBucket: async (...args: Parameters<typeof real.readBucket>) => {
      const [js, jsm, bucket, pattern, onEntry] = args
      const hold = control.holds.shift()
      if (hold) {
        // The real answer, then delivered as the test says: `at` entries, a pause, the rest.
        const entries: Parameters<typeof onEntry>[0][] = []
        await real.readBucket(js, jsm, bucket, pattern, (entry) => entries.push(entry))
        entries.slice(0, hold.at).forEach(onEntry)
        hold.reached = true
        await hold.gate
        entries.slice(hold.at).forEach(onEntry)
        return entries.length
      }
      if (!control.failing) return real.readBucket(...args)
      let delivered = 0
      await real.readBucket(js, jsm, bucket, pattern, (entry) => {
        if (delivered++ === 0) onEntry(entry)
      })
      control.failed++
      throw new Error('injected: the read failed after its first entry')
    },
  }
})

let nats: Awaited<ReturnType<typeof startNats>>
let sim: SolverSimulator
const relays: Relay[] = []
beforeEach(async () => {
  if (!natsAvailable) return
  ;[nats, sim] = await Promise.all([startNats(), startSolverSimulator({ protocol: 'rasa' })])
})
afterEach(async () => {
  if (!natsAvailable) return
  control.failing = false
  control.holds.length = 0
  for (const hold of control.made.splice(0)) hold.go()
  await Promise.all(relays.splice(0).map((r) => r.close()))
  await sim.close()
  await nats.close()
})

const configOf = (s: SolverSimulator) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })


it.skipIf(!natsAvailable)('a partition read that fails midway lets go of nothing: the accounts it did not read keep their positions in the record', async () => {
  const accounts = ['0xabc0000000000000000000000000000000000031', '0xabc0000000000000000000000000000000000032', '0xabc0000000000000000000000000000000000033'].map((a) => accountKey(1, 'beta', a))
  const nc = await connect({ servers: nats.url })
  // One partition: every account shares its record and its read.
  const first = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, instanceId: 'first', partitions: 1 })
  await addAccounts({ servers: nats.url }, accounts)
  const checkpoints = await new Kvm(nc).open('solver_relay_checkpoints')
  const record = async () => Object.keys((await checkpoints.get(recordKey(0)))?.json<{ accounts: Record<string, unknown> }>().accounts ?? {}).sort()
  await until(async () => (await record()).length === 3, 'the three positions in the record')
  await first.close()

  // Every read of the next relay fails after one entry: it takes the partition, claims the record,
  // reads, fails, gives it back, and again.
  control.failing = true
  const lines: string[] = []
  const next = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, instanceId: 'next', partitions: 1, log: (line) => lines.push(line) })
  relays.push(next)
  await until(() => control.failed >= 3 && lines.filter((l) => l.includes('accounts not read')).length >= 3, 'three failed reads, each given back')
  // What a failed read did not deliver was never let go: the record still holds all three.
  expect(await record()).toEqual([...accounts].sort())
  control.failing = false
  await until(() => next.owned().length === 3, 'all three owned once reads succeed')
  expect(await record()).toEqual([...accounts].sort())
  await nc.close()
})

const holdRead = (at: number) => {
  let go = () => {}
  const gate = new Promise<void>((resolve) => (go = resolve))
  const hold = { at, reached: false, go, gate }
  control.holds.push(hold)
  control.made.push(hold)
  return hold
}

it.skipIf(!natsAvailable)("a read that outlives its partition's loss and re-take reconciles nothing: the new lease's read decides", async () => {
  const accounts = ['0xabc0000000000000000000000000000000000041', '0xabc0000000000000000000000000000000000042', '0xabc0000000000000000000000000000000000043'].map((a) => accountKey(1, 'beta', a))
  const nc = await connect({ servers: nats.url })
  const kvm = new Kvm(nc)
  const first = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, instanceId: 'first', partitions: 1 })
  await addAccounts({ servers: nats.url }, accounts)
  const checkpoints = await kvm.open('solver_relay_checkpoints')
  const record = async () => Object.keys((await checkpoints.get(recordKey(0)))?.json<{ accounts: Record<string, unknown> }>().accounts ?? {}).sort()
  await until(async () => (await record()).length === 3, 'the three positions in the record')
  await first.close()

  // The first read delivers all three, then stalls before it returns; the partition is lost and taken
  // again meanwhile, and the second read stalls after one entry.
  const stale = holdRead(3)
  const current = holdRead(1)
  const lines: string[] = []
  const next = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, instanceId: 'next', partitions: 1, log: (line) => lines.push(line) })
  relays.push(next)
  await until(() => stale.reached, 'the first read to stall')
  // Another owner wrote the lease: the next renewal finds it and the relay lets the partition go; it
  // takes it again once that lease runs out.
  const leases = await kvm.open('solver_relay_leases')
  await leases.put('partitions.0', JSON.stringify({ owner: 'intruder', expires: Date.now() + 1_000 }))
  await until(async () => /^solver_relay_errors_total\{code="LEASE_LOST"\} [1-9]/m.test(await next.registry.metrics()), 'the partition lost')
  await until(() => current.reached, 'the partition taken again and its read stalled after one entry')
  expect(next.owned().sort()).toEqual([...accounts].sort())

  // The stale read ends first. Reconciled against the current read (one entry seen), it let go of
  // the other two: owned 1, their positions forgotten.
  stale.go()
  await until(() => lines.filter((l) => l.includes('partitions read')).length === 1, 'the stale read to end')
  expect(next.owned().sort()).toEqual([...accounts].sort())
  current.go()
  await until(() => lines.filter((l) => l.includes('partitions read')).length === 2, 'the current read to end')
  expect(next.owned().sort()).toEqual([...accounts].sort())
  expect(await record()).toEqual([...accounts].sort())
  await nc.close()
})
