import { startSolverSimulator } from '@solver-notifications/testkit'
import { observe } from '../test/cluster.js'
import { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { addAccounts } from '../src/accountsAdmin.js'
import { type Relay, startRelay } from '../src/startRelay.js'
import { sampler, until } from './faults.js'

/**
 * ROLLING: a rolling upgrade as an operator runs one — three relays on one nats-server, enigma
 * lifecycles published all along, each relay in turn drained (SIGTERM: `close()`) and replaced by a new
 * one (a new instance id), the next only once the new one owns accounts. It prints the notifications
 * JetStream lacks at the end (must be 0), the longest any account was owned by two relays at once (must
 * be 0), and the longest one was owned by none (a drain hands each partition over as its lease is given
 * back: far below a lease TTL; the bound is one round). Ownership is sampled every 10 ms from each
 * relay's `owned()`.
 */
const TTL = 15_000
const ROUND = TTL / 3
const address = (i: number) => `0x${(0x7011e0 + i).toString(16).padStart(40, '0')}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function rollingBench(): Promise<boolean> {
  const nats = await startNats()
  const sim = await startSolverSimulator({ protocol: 'enigma' })
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'alpha', solvers: { alpha: { notifications: { protocol: 'enigma' as const, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } } }
  const start = (name: string) => startRelay({ config, nats: { servers: nats.url }, leaseTtlMs: TTL, partitions: 16, instanceId: name, log: () => {} })
  const relays: Relay[] = []
  for (let i = 0; i < 3; i++) relays.push(await start(`rolling-bench-${i}`))
  const accounts = Array.from({ length: 360 }, (_, i) => address(i))
  const keys = accounts.map((a) => accountKey(1, 'alpha', a))
  await addAccounts({ servers: nats.url }, keys)
  const settled = () => relays.reduce((n, r) => n + r.owned().length, 0) === keys.length && relays.every((r) => r.owned().length > 0)
  await until(settled)
  for (const a of accounts) await sim.waitForSubscribers(a)
  // The sampler reads `relays` at every sample: a relay replaced in it is sampled from then on.
  const sample = sampler(relays, keys)
  let sent = 0
  let loading = true
  const load = (async () => {
    for (let i = 0; loading; i++) {
      sent += (await sim.instantOpen(accounts[i % accounts.length]!)).frames.length
      await sleep(15)
    }
  })()
  let longestDrain = 0
  for (let i = 0; i < relays.length; i++) {
    const began = performance.now()
    await relays[i]!.close()
    longestDrain = Math.max(longestDrain, performance.now() - began)
    relays[i] = await start(`rolling-bench-${i}-next`)
    await until(settled)
  }
  loading = false
  await load
  const o = await observe(nats.url)
  const stored = async () => new Set((await o.messages()).map((m) => m.msgId)).size
  // The most the stream was seen to hold: a reading that fails is not a loss.
  let held = 0
  await until(async () => (held = Math.max(held, await stored())) >= sent, 60_000).catch(() => undefined)
  const lost = sent - held
  const { twice, none } = await sample.stop()
  const pass = lost === 0 && twice === 0
  console.log(
    `ROLLING 3 relays on one nats-server, each drained and replaced in turn under load (${keys.length} accounts, ${sent.toLocaleString('en-US')} notifications, lease TTL ${TTL / 1000} s; longest drain ${(longestDrain / 1000).toFixed(1)} s): lost ${lost} (target 0), longest owned by two at once ${Math.round(twice)} ms (target 0), longest owned by none ${Math.round(none)} ms (target ≤ one round, ${ROUND / 1000} s) ${pass && none <= ROUND ? 'PASS' : pass ? 'MISS' : 'FAIL'}`,
  )
  await o.close()
  for (const r of relays) await r.close()
  await sim.close()
  await nats.close()
  return pass
}
