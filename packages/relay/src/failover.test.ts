import { afterEach, expect, it } from 'vitest'
import { type SolverSimulator, observe, spawnRelay, startSolvers, stopRelay, until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'

// Failover across real processes: 3 relays on a real nats-server -js, 300 accounts on
// both protocols, lifecycles published throughout, one relay killed with SIGKILL midway.

const LEASE_TTL_MS = 3_000
const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const address = (i: number) => `0x${(0xabc000 + i).toString(16).padStart(40, '0')}` as const

it.skipIf(!natsAvailable)('kill -9 one of 3 relays: its accounts are re-owned within leaseTtlMs + 5 s, and the stream holds every enigma transition once and every rasa quote’s latest state', async () => {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const solvers = await startSolvers()
  cleanups.push(() => solvers.close())
  const relays = ['r1', 'r2', 'r3'].map((id) => spawnRelay(solvers.file, nats.url, id, ['--lease-ttl-ms', String(LEASE_TTL_MS), '--partitions', '32']))
  cleanups.push(() => Promise.all(relays.map(stopRelay)))
  const obs = await observe(nats.url)
  cleanups.push(() => obs.close())

  const enigmaAccounts = Array.from({ length: 150 }, (_, i) => address(i))
  const rasaAccounts = Array.from({ length: 150 }, (_, i) => address(1_000 + i))
  const keys = [...enigmaAccounts.map((a) => accountKey(1, 'alpha', a)), ...rasaAccounts.map((a) => accountKey(1, 'beta', a))]
  await addAccounts({ servers: nats.url }, keys)
  // Relays start at different speeds; the first one takes everything until the others join.
  let before = new Map<string, string>()
  await until(async () => {
    before = await obs.owners()
    const shares = ['r1', 'r2', 'r3'].map((id) => [...before.values()].filter((o) => o === id).length)
    return before.size === 300 && shares.every((n) => n >= 70)
  }, 'all 300 accounts spread over the 3 relays', 60_000)

  // Published throughout: an instant open per account, the victim killed halfway, then a close per account.
  const quotes = new Map<string, { sim: SolverSimulator; quoteId: number }>()
  const lifecycle = async (i: number) => {
    const [sim, account] = i < 150 ? [solvers.enigma, enigmaAccounts[i]!] : [solvers.rasa, rasaAccounts[i - 150]!]
    const opened = await sim.instantOpen(account)
    quotes.set(account, { sim, quoteId: opened.quoteId })
  }
  let killedAt = 0
  const victim = relays[1]!
  for (let i = 0; i < 300; i++) {
    await lifecycle(i % 2 === 0 ? i / 2 : 150 + (i - 1) / 2)
    if (i === 150) {
      victim.child.kill('SIGKILL')
      killedAt = Date.now()
    }
  }
  for (const { sim, quoteId } of quotes.values()) await sim.closeRequest(quoteId)

  const victimKeys = [...before].filter(([, owner]) => owner === victim.id).map(([key]) => key)
  expect(victimKeys.length).toBeGreaterThan(50)
  await until(async () => {
    const now = await obs.owners()
    return victimKeys.every((k) => now.has(k) && now.get(k) !== victim.id)
  }, 'the victim’s accounts to be re-owned', LEASE_TTL_MS + 20_000)
  const reownedInMs = Date.now() - killedAt
  expect(reownedInMs).toBeLessThan(LEASE_TTL_MS + 5_000)

  // The independent count: what the stream holds once every relay has caught up.
  const enigmaFrames = solvers.enigma.documents().map((d) => d.data as { id: string })
  const rasaLatest = new Map<number, { id: string; modify_time: number }>()
  for (const s of solvers.rasa.positionStates()) rasaLatest.set(s.quote_id as number, s as never)
  expect(enigmaFrames).toHaveLength(900)
  expect(rasaLatest.size).toBe(150)
  let messages: Awaited<ReturnType<typeof obs.messages>> = []
  await until(async () => {
    messages = await obs.messages()
    const ids = new Set(messages.map((m) => m.body.id))
    return enigmaFrames.every((f) => ids.has(f.id)) && [...rasaLatest.values()].every((s) => ids.has(s.id))
  }, 'the stream to hold everything', 30_000)
  const enigmaMessages = messages.filter((m) => m.subject.includes('.alpha.'))
  const counts = new Map<string, number>()
  for (const m of enigmaMessages) counts.set(m.body.id!, (counts.get(m.body.id!) ?? 0) + 1)
  expect(enigmaMessages).toHaveLength(900)
  expect([...counts.values()].every((n) => n === 1)).toBe(true)
  // Nothing twice on rasa either: one message per Nats-Msg-Id.
  const msgIds = messages.map((m) => m.msgId)
  expect(new Set(msgIds).size).toBe(msgIds.length)
  for (const m of messages) expect(m.subject).toBe(`solver.notifications.${m.msgId.split('.').slice(0, 3).join('.')}`)
  console.log(`failover: ${victimKeys.length} accounts re-owned ${reownedInMs} ms after SIGKILL; stream holds ${messages.length} messages`)
})
