import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { observe, until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { startRelay } from './startRelay.js'

// NATS away longer than a lease (the relay README, "NATS away longer than a lease"): what the relay saw is kept, not lost.

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const address = (i: number) => `0x${(0xfb0000 + i).toString(16).padStart(40, '0')}`
const configOf = (s: SolverSimulator) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)) // the outage's own length, not synchronisation

it.skipIf(!natsAvailable).each([2.5, 8])('NATS away %s times the lease TTL (one server, storage kept): every rasa state published before, during and after is in the stream once, in per-quote order; nothing was dropped', async (ttls) => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const leaseTtlMs = 2_000
  const relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 } as never, leaseTtlMs, instanceId: 'away', partitions: 4 })
  cleanups.push(() => relay.close())
  const accounts = Array.from({ length: 4 }, (_, i) => address(i))
  await addAccounts({ servers: nats.url }, accounts.map((a) => accountKey(1, 'beta', a)))
  await until(() => relay.owned().length === 4, 'the 4 accounts owned')
  for (const a of accounts) await sim.waitForSubscribers(a)

  /** each quote's states in the order the solver published them, by every id it went by */
  const sent = new Map<number, string[]>()
  const quoteOf = new Map<number, number>()
  let total = 0
  const round = async () => {
    for (const a of accounts) {
      const r = await sim.instantOpen(a)
      for (const id of [r.quoteId, r.tempQuoteId, -r.tempQuoteId]) quoteOf.set(id, r.quoteId)
      sent.set(r.quoteId, r.frames.map((f) => `${f.last_seen_action}/${f.action_status}`))
      total += r.frames.length
    }
  }
  await round()
  await until(() => relay.stats().published >= total, 'what was published before the outage stored')
  await nats.stop()
  // Published while NATS is away, past every lease (the relay fences itself).
  for (let i = 0; i < ttls * 2; i++) {
    await round()
    await pause(leaseTtlMs / 2)
  }
  expect(relay.owned()).toEqual([])
  await nats.restart()
  await round()

  const o = await observe(nats.url)
  cleanups.push(() => o.close())
  await until(async () => (await o.messages()).length >= total, `the ${total} states in JetStream`, 40_000).catch(async (error: Error) => {
    throw new Error(`${error.message}: ${(await o.messages()).length} stored; ${JSON.stringify(relay.stats())}`)
  })
  const messages = await o.messages()
  expect(new Set(messages.map((m) => m.msgId)).size).toBe(messages.length)
  const stored = new Map<number, string[]>()
  for (const m of messages) {
    const quote = quoteOf.get(m.body.quoteId) ?? m.body.quoteId
    stored.set(quote, [...(stored.get(quote) ?? []), `${m.body.lastSeenAction}/${m.body.actionStatus}`])
  }
  expect(stored).toEqual(sent)
  expect(messages.length).toBe(total)
  const text = await relay.registry.metrics()
  expect(text).not.toMatch(/^solver_relay_kept_dropped_total\{[^}]*\} [1-9]/m)
  expect(text).toMatch(/^solver_relay_kept 0$/m)
  expect(text).toMatch(/^solver_relay_errors_total\{code="LEASE_LOST"\} [1-9]/m)
}, 120_000)
