import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { normalizeNotification } from '@solver-notifications/core'
import { startRemoteSimulator } from '../../core/bench/remoteSimulator.js'
import { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { addAccounts, removeAccounts } from '../src/accountsAdmin.js'
import { dedupeKey } from '../src/AccountRelay.js'
import { startRelay } from '../src/startRelay.js'
import { clusterBench } from './cluster.js'
import { controlPlaneBench } from './controlPlane.js'
import { faultsBench } from './faults.js'
import { rollingBench } from './rolling.js'
import { scaleBench } from './scale.js'
import { slowHistoryBench } from './slowHistory.js'

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const address = (i: number) => `0x${(0xfee000 + i).toString(16).padStart(40, '0')}`
async function until(test: () => boolean, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > deadline) throw new Error('bench timed out')
    await new Promise((r) => setTimeout(r, 5))
  }
}

/**
 * Throughput: notifications/s from a simulator (its own process) through one relay into JetStream,
 * acknowledged, against a plain `js.publish` loop of the same messages (same subjects, bodies and
 * `Nats-Msg-Id`s, all in flight at once) in the same run; target ≥ 0.9×. Then scale (bench/scale.ts):
 * four relay processes, 22,000 accounts, one killed.
 */
async function main(): Promise<void> {
  // The partitioned control plane, simulated (no sockets): seconds, so it runs in full everywhere.
  if (!controlPlaneBench()) process.exitCode = 1
  const nats = await startNats()
  const sim = await startRemoteSimulator('rasa')
  const accounts = Array.from({ length: 100 }, (_, i) => address(i))
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  const relay = await startRelay({ config, nats: { servers: nats.url }, instanceId: 'bench', leaseTtlMs: 15_000 })
  await addAccounts({ servers: nats.url }, accounts.map((a) => accountKey(1, 'beta', a)))
  await until(() => relay.owned().length === accounts.length)
  await sim.waitForSubscribers(accounts)
  const nc = await connect({ servers: nats.url })
  const js = jetstream(nc)
  const n = 20_000
  let round = 0
  const t0 = Math.floor(Date.now() / 1000)
  const frameOf = (r: number) => ({ modify_time: t0 + r, create_time: t0, last_seen_action: 'InstantRFQ', action_status: 'success', counterparty_address: accounts[0]! })

  const throughRelay = async (): Promise<number> => {
    const r = ++round
    const before = relay.stats().published
    const start = performance.now()
    await sim.publish([frameOf(r)], { repeat: n, spread: { accounts } })
    await until(() => relay.stats().published - before >= n)
    return n / ((performance.now() - start) / 1000)
  }
  const plainLoop = async (): Promise<number> => {
    const r = ++round
    // The same messages the relay publishes: subject, normalized JSON body, Nats-Msg-Id (made first, not timed).
    const messages = Array.from({ length: n }, (_, i) => {
      const account = accounts[i % accounts.length]!
      const note = normalizeNotification({ ...frameOf(r), counterparty_address: account, quote_id: i + 1 }, { protocol: 'rasa', chainId: 1, solverId: 'beta', account: account as `0x${string}` })
      const key = accountKey(1, 'beta', account)
      return { subject: `solver.notifications.${key}`, body: JSON.stringify(note), msgID: `${key}.${dedupeKey(note)}` }
    })
    const start = performance.now()
    await Promise.all(messages.map((m) => js.publish(m.subject, m.body, { msgID: m.msgID })))
    return n / ((performance.now() - start) / 1000)
  }
  await throughRelay()
  await plainLoop()
  const ours: number[] = []
  const reference: number[] = []
  for (let i = 0; i < 3; i++) {
    ours.push(await throughRelay())
    reference.push(await plainLoop())
  }
  const ratio = median(ours) / median(reference)
  console.log(
    `RELAY simulator → relay → JetStream (acknowledged): ${fmt(median(ours))} notifications/s vs a plain js.publish loop of the same messages ${fmt(median(reference))}/s → ratio ${ratio.toFixed(2)}× (target ≥ 0.90×) ${ratio >= 0.9 ? 'PASS' : 'MISS'}`,
  )
  await relay.close()
  await sim.close()
  // The scale run starts from an empty bucket and stream: these accounts' simulator is gone.
  await removeAccounts({ servers: nats.url }, accounts.map((a) => accountKey(1, 'beta', a)))
  await (await jetstreamManager(nc)).streams.purge('SOLVER_NOTIFICATIONS')

  await nc.close()
  if (!(await slowHistoryBench(nats))) process.exitCode = 1
  // NATS misbehaving (lost volume, a relay cut off, a drain while opening): servers of their own.
  if (!(await faultsBench())) process.exitCode = 1
  // A three-node cluster, each node killed in turn under load: servers of their own.
  if (!(await clusterBench())) process.exitCode = 1
  // Each relay drained and replaced in turn under load: a server of its own.
  if (!(await rollingBench('enigma'))) process.exitCode = 1
  if (!(await rollingBench('rasa'))) process.exitCode = 1
  await scaleBench(nats)
  await nats.close()
}

await main()
