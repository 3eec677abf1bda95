import { startSolverSimulator } from '@solver-notifications/testkit'
import { observe } from '../test/cluster.js'
import { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { addAccounts } from '../src/accountsAdmin.js'
import { type Relay, startRelay } from '../src/startRelay.js'
import { sampler, until } from './faults.js'

/**
 * ROLLING: a rolling upgrade as an operator runs one — three relays on one nats-server, lifecycles
 * published all along, each relay in turn drained (SIGTERM: `close()`) and replaced by a new one (a new
 * instance id), the next only once the new one owns accounts. It prints the notifications JetStream lacks
 * at the end, the longest any account was owned by two relays at once (must be 0), and the longest one
 * was owned by none (a drain hands each partition over as its lease is given back: far below a lease TTL;
 * the bound is one round). Ownership is sampled every 10 ms from each relay's `owned()`.
 *
 * On enigma nothing may be lost (history brings every transition of the handover's gap back). On rasa,
 * whose history keeps each quote's latest state only, a transition published in the gap between one
 * relay letting an account go and the next subscribing it is gone: the figure counts those, and that each
 * such quote's latest state reached the stream recovered (`source: 'backfill'`, counted in
 * `solver_relay_recovered_total{protocol="rasa"}`), so none is lost silently.
 */
const TTL = 15_000
const ROUND = TTL / 3
const address = (i: number) => `0x${(0x7011e0 + i).toString(16).padStart(40, '0')}`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function rollingBench(protocol: 'enigma' | 'rasa' = 'enigma'): Promise<boolean> {
  const nats = await startNats()
  const sim = await startSolverSimulator({ protocol })
  const solver = protocol === 'enigma'
    ? { notifications: { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } }
    : { url: sim.httpUrl, notifications: { protocol, url: sim.wsUrl } }
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'alpha', solvers: { alpha: solver } } } }
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
  const published: Array<{ id: string; quote: number }> = []
  let loading = true
  const load = (async () => {
    for (let i = 0; loading; i++) {
      const { frames, quoteId } = await sim.instantOpen(accounts[i % accounts.length]!)
      sent += frames.length
      for (const f of frames) published.push({ id: f.id as string, quote: quoteId })
      await sleep(15)
    }
  })()
  let longestDrain = 0
  const recovered = () => relays.reduce((n, r) => n + r.stats().recovered, 0)
  let recoveredByGone = 0
  for (let i = 0; i < relays.length; i++) {
    const began = performance.now()
    await relays[i]!.close()
    recoveredByGone += relays[i]!.stats().recovered
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
  const label = `ROLLING ${protocol}, 3 relays on one nats-server, each drained and replaced in turn under load (${keys.length} accounts, ${sent.toLocaleString('en-US')} notifications, lease TTL ${TTL / 1000} s; longest drain ${(longestDrain / 1000).toFixed(1)} s)`
  const owners = `longest owned by two at once ${Math.round(twice)} ms (target 0), longest owned by none ${Math.round(none)} ms (target ≤ one round, ${ROUND / 1000} s)`
  let pass: boolean
  if (protocol === 'enigma') {
    pass = lost === 0 && twice === 0
    console.log(`${label}: lost ${lost} (target 0), ${owners} ${pass && none <= ROUND ? 'PASS' : pass ? 'MISS' : 'FAIL'}`)
  } else {
    // Which quotes lost a transition, and whether the stream holds each one's latest state as recovered.
    const messages = await o.messages()
    const stored = new Set(messages.map((m) => m.body.id))
    const recoveredQuotes = new Set(messages.filter((m) => m.body.source === 'backfill').map((m) => m.body.quoteId))
    const lostQuotes = new Set(published.filter((p) => !stored.has(p.id)).map((p) => p.quote))
    const silent = [...lostQuotes].filter((q) => !recoveredQuotes.has(q)).length
    pass = twice === 0
    // The race that can still hide a loss (docs: packages/relay/README.md, "Recovered states"): a quote's
    // next state arriving live before the backfill reads it. Printed, not failed on: it is a known limit.
    console.log(`${label}: lost ${lost} transitions of ${lostQuotes.size} quotes published while the account was between two relays (rasa history keeps the latest state), each quote's latest state in the stream recovered from history but ${silent} (target 0: none lost silently), solver_relay_recovered_total ${recovered() + recoveredByGone}, ${owners} ${pass && silent === 0 && none <= ROUND ? 'PASS' : pass ? 'MISS' : 'FAIL'}`)
  }
  await o.close()
  for (const r of relays) await r.close()
  await sim.close()
  await nats.close()
  return pass
}
