// Starts and closes relays in one process and prints the heap they leave behind (run with --expose-gc).
import { startSolverSimulator } from '@solver-notifications/testkit'
import { accountKey } from '../src/accountKeys.js'
import { addAccounts } from '../src/accountsAdmin.js'
import { startRelay } from '../src/startRelay.js'

const servers = process.argv[2]!
const rounds = Number(process.argv[3] ?? 8)
// Relays that own accounts (a closed relay kept its coordinator, tables and client when something held it).
const sim = await startSolverSimulator({ protocol: 'rasa' })
const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
const accounts = Array.from({ length: 100 }, (_, i) => accountKey(1, 'beta', `0x${(0x1ea0000 + i).toString(16).padStart(40, '0')}`))
await addAccounts({ servers }, accounts)
const gc = (globalThis as { gc?: () => void }).gc!
const heap = async () => {
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return process.memoryUsage().heapUsed
}
const once = async (i: number) => {
  const relay = await startRelay({ config, nats: { servers }, leaseTtlMs: 1_500, instanceId: `leak-${i}`, partitions: Number(process.env.LEAK_PARTITIONS ?? 8) })
  while (relay.owned().length < accounts.length) await new Promise((resolve) => setTimeout(resolve, 20))
  await relay.registry.metrics()
  await relay.close()
}
await once(0)
const before = await heap()
for (let i = 1; i <= rounds; i++) await once(i)
const after = await heap()
await sim.close()
// What is still alive of the closed relays, counted in a heap snapshot: bytes alone are noisy.
const { writeHeapSnapshot } = await import('node:v8')
const { readFileSync, rmSync } = await import('node:fs')
const { tmpdir } = await import('node:os')
const { join } = await import('node:path')
const file = writeHeapSnapshot(join(tmpdir(), `relay-leak-${process.pid}.heapsnapshot`))
const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] }
rmSync(file)
const width = snapshot.snapshot.meta.node_fields.length
const objectType = snapshot.snapshot.meta.node_types[0].indexOf('object')
const alive: Record<string, number> = { Coordinator: 0, RelayMetrics: 0, NatsConnectionImpl: 0 }
for (let i = 0; i < snapshot.nodes.length; i += width) {
  const name = snapshot.strings[snapshot.nodes[i + 1]!]!
  if (snapshot.nodes[i] === objectType && name in alive) alive[name]!++
}
process.stdout.write(`${JSON.stringify({ rounds, before, after, perRelay: (after - before) / rounds, alive })}\n`)
process.exit(0)
