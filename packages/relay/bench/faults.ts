import { startSolverSimulator } from '@solver-notifications/testkit'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { startNatsProxy } from '../test/natsProxy.js'
import { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { addAccounts } from '../src/accountsAdmin.js'
import { type Relay, startRelay } from '../src/startRelay.js'
import { createRelayLogger } from '../src/relayLogger.js'

/**
 * FAULTS: the relay when NATS misbehaves, three figures (each its own nats-server, relays in this process):
 *
 * - NATS restarted with an empty store, the 1,000 accounts added again once the relays have rebuilt the
 *   deployment: seconds until every account is owned again (the relays notice the reset and recreate
 *   their buckets; no restart of theirs);
 * - one relay of three cut off from NATS (its connections black-holed): the longest span any account
 *   was owned by two relays at once (must be 0: its local fence stops it before its leases can run out)
 *   and the longest it was owned by none (≤ the lease TTL and one round);
 * - a drain while 300 accounts are being opened (their first backfills held): the longest an account was
 *   owned by nobody (≤ one round: the heartbeat goes first, the accounts being opened are let go at once).
 *
 * Ownership is sampled every 10 ms from each relay's `owned()`: spans are as fine as that.
 */
const TTL = 3_000
const ROUND = TTL / 3
const address = (i: number) => `0x${(0xfa1700 + i).toString(16).padStart(40, '0')}`
const configOf = (s: { httpUrl: string; wsUrl: string }) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Waits for `test` (a figure's condition), 2 minutes at most. */
export async function until(test: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error('bench timed out waiting for its condition')
    await sleep(20)
  }
}

/** Samples who owns each key every 10 ms; the longest span each key spent owned twice and owned by none. */
export function sampler(relays: Relay[], keys: string[]) {
  const twiceSince = new Map<string, number>()
  const noneSince = new Map<string, number>()
  let twice = 0
  let none = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const now = performance.now()
      const count = new Map<string, number>()
      for (const r of relays) for (const key of r.owned()) count.set(key, (count.get(key) ?? 0) + 1)
      for (const key of keys) {
        const n = count.get(key) ?? 0
        if (n > 1) twiceSince.set(key, twiceSince.get(key) ?? now)
        else if (twiceSince.has(key)) {
          twice = Math.max(twice, now - twiceSince.get(key)!)
          twiceSince.delete(key)
        }
        if (n === 0) noneSince.set(key, noneSince.get(key) ?? now)
        else if (noneSince.has(key)) {
          none = Math.max(none, now - noneSince.get(key)!)
          noneSince.delete(key)
        }
      }
      await sleep(10)
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      const now = performance.now()
      for (const at of twiceSince.values()) twice = Math.max(twice, now - at)
      for (const at of noneSince.values()) none = Math.max(none, now - at)
      return { twice, none }
    },
  }
}

async function lostVolume(): Promise<boolean> {
  const nats = await startNats()
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  // The relays' logs are kept and printed if a wait runs out, so a failure leaves its evidence (a CI run
  // once waited 120 s for the deployment to be rebuilt, with nothing to explain it).
  const log: string[] = []
  const logger = (instance: string) => createRelayLogger({ instance, destination: { write: (line: string) => log.push(line) } })
  const relays = await Promise.all(['lv-a', 'lv-b'].map((instanceId) => startRelay({ config: configOf(sim), nats: { servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 } as never, leaseTtlMs: TTL, instanceId, partitions: 64, logger: logger(instanceId) })))
  const waitFor = (test: () => boolean | Promise<boolean>) =>
    until(test).catch((error: unknown) => {
      console.log(`FAULTS lost volume: a wait ran out; the relays' last ${Math.min(log.length, 300)} log lines:\n${log.slice(-300).join('')}`)
      throw error
    })
  const keys = Array.from({ length: 1_000 }, (_, i) => accountKey(1, 'beta', address(i)))
  await addAccounts({ servers: nats.url }, keys)
  const owned = () => relays.reduce((n, r) => n + r.owned().length, 0)
  await waitFor(() => owned() === keys.length)
  await nats.restart({ empty: true })
  const lost = performance.now()
  // Once the relays have rebuilt the deployment (their config written again, the accounts bucket
  // recreated), the operator adds the accounts back. An operator quicker than that creates the accounts
  // bucket itself, and the relays confirm that recreation over two readings a second apart (a cluster's
  // stale answer is not a reset) before they read it: about 2 s more, measured 4.3 s in all.
  await waitFor(async () => {
    const nc = await connect({ servers: nats.url }).catch(() => undefined)
    if (!nc) return false
    try {
      const kvm = new Kvm(nc)
      await (await kvm.open('solver_relay_accounts')).status()
      return (await (await kvm.open('solver_relay_leases')).get('config'))?.operation === 'PUT'
    } catch {
      return false
    } finally {
      await nc.close()
    }
  })
  const rebuilt = performance.now()
  await addAccounts({ servers: nats.url }, keys)
  const added = performance.now()
  await waitFor(() => owned() === keys.length)
  const back = performance.now()
  console.log(
    `FAULTS lost volume: NATS restarted empty under 2 relays (${keys.length.toLocaleString('en-US')} accounts, lease TTL ${TTL} ms): deployment rebuilt by the relays ${((rebuilt - lost) / 1000).toFixed(1)} s after the restart; every account owned again ${((back - added) / 1000).toFixed(1)} s after the operator re-added them (target ≤ ${(TTL + ROUND) / 1000} s: a takeover) ${back - added <= TTL + ROUND ? 'PASS' : 'MISS'}`,
  )
  for (const r of relays) await r.close()
  await sim.close()
  await nats.close()
  return back - added <= TTL + ROUND
}

async function cutOff(): Promise<boolean> {
  const nats = await startNats()
  const proxy = await startNatsProxy(nats)
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  const relays: Relay[] = []
  relays.push(await startRelay({ config: configOf(sim), nats: { servers: proxy.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 } as never, leaseTtlMs: TTL, instanceId: 'cut', partitions: 64 }))
  for (const id of ['kept-1', 'kept-2']) relays.push(await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: TTL, instanceId: id, partitions: 64 }))
  const keys = Array.from({ length: 300 }, (_, i) => accountKey(1, 'beta', address(2_000 + i)))
  await addAccounts({ servers: nats.url }, keys)
  await until(() => relays.reduce((n, r) => n + r.owned().length, 0) === keys.length && relays.every((r) => r.owned().length > 0))
  const had = relays[0]!.owned().length
  const sample = sampler(relays, keys)
  proxy.cut('blackhole')
  await until(() => relays[1]!.owned().length + relays[2]!.owned().length === keys.length)
  await sleep(TTL)
  const { twice, none } = await sample.stop()
  proxy.heal()
  const pass = twice === 0 && none <= TTL + ROUND
  console.log(
    `FAULTS cut off: 1 relay of 3 black-holed from NATS (it owned ${had} of ${keys.length} accounts, lease TTL ${TTL} ms): longest owned by two at once ${Math.round(twice)} ms (target 0), longest owned by none ${Math.round(none)} ms (target ≤ TTL + one round, ${TTL + ROUND} ms) ${pass ? 'PASS' : 'MISS'}`,
  )
  for (const r of relays) await r.close()
  await proxy.close()
  await sim.close()
  await nats.close()
  return twice === 0
}

async function drainWhileOpening(): Promise<boolean> {
  const nats = await startNats()
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  const staying = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: TTL, instanceId: 'staying', partitions: 64 })
  const leaving = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: TTL, instanceId: 'leaving', partitions: 64 })
  const hold = sim.holdHttpAnswers()
  const keys = Array.from({ length: 300 }, (_, i) => accountKey(1, 'beta', address(4_000 + i)))
  await addAccounts({ servers: nats.url }, keys)
  await until(() => leaving.owned().length > 0 && leaving.owned().length + staying.owned().length === keys.length)
  await hold.held(1)
  const sample = sampler([staying, leaving], keys)
  const started = performance.now()
  await leaving.close()
  const drained = performance.now()
  await until(() => staying.owned().length === keys.length)
  const { none } = await sample.stop()
  hold.release()
  console.log(
    `FAULTS drain while opening: ${keys.length} accounts whose first backfills are held, one relay of 2 drains: drain took ${Math.round(drained - started)} ms; longest an account was owned by none ${Math.round(none)} ms (target ≤ one round, ${ROUND} ms) ${none <= ROUND ? 'PASS' : 'MISS'}`,
  )
  await staying.close()
  await sim.close()
  await nats.close()
  return true
}

/** Runs the three; false only on a correctness failure (an account owned by two relays at once). */
export async function faultsBench(): Promise<boolean> {
  const results = [await lostVolume(), await cutOff(), await drainWhileOpening()]
  return results[1]!
}
