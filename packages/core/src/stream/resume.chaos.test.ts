import type { SolverSimulator } from '@solver-notifications/testkit'
import type { Subscription } from 'rxjs'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Live, accounts, startLive } from '../../test/live.js'
import { seededRandom } from '../../test/random.js'
import type { Notification } from '../protocol/types.js'

let live: Live
beforeEach(async () => {
  live = await startLive({
    lingerMs: 20,
    reconnect: { baseDelayMs: 10, maxDelayMs: 100, resetAfterMs: 200 },
    heartbeat: { intervalMs: 80, timeoutMs: 80 },
  })
})
afterEach(() => live.stop())

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)) // chaos pacing, not synchronisation

it('resume: every published transition arrives exactly once through drops, stalls and malformed frames', async () => {
  const seed = Number(process.env.CHAOS_SEED ?? 7)
  const random = seededRandom(seed)
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const streams = (['enigma', 'rasa'] as const).flatMap((protocol) =>
    accounts.map((account) => ({ protocol, account, sim: live.sims[protocol] as SolverSimulator, delivered: [] as Notification[], sub: undefined as Subscription | undefined })),
  )
  for (const s of streams) {
    s.sub = live.client.notifications({ account: s.account, solverId: live.solverOf[s.protocol] }, { resume: true }).subscribe((n) => s.delivered.push(n))
  }
  await expect.poll(() => live.enigma.subscriptions().length + live.rasa.subscriptions().length).toBe(4)

  const open = new Map<string, number>() // account+protocol → open quote
  const published = { enigma: 0, rasa: 0 }
  let drops = 0
  let stalls = 0
  let malformed = 0
  let slowSearches = 0
  for (let step = 0; step < 240; step++) {
    const s = pick(streams)
    const key = `${s.protocol}${s.account}`
    const quote = open.get(key)
    const roll = random()
    if (quote !== undefined && roll < 0.4) {
      published[s.protocol] += (await s.sim.closeRequest(quote)).frames.length
      open.delete(key)
    } else if (roll < 0.85) {
      const opened = await s.sim.instantOpen(s.account)
      published[s.protocol] += opened.frames.length
      open.set(key, opened.quoteId)
    } else published[s.protocol] += (await s.sim.fail(s.account)).frames.length
    if (step % 4 === 0) {
      drops++
      void pick([live.enigma, live.rasa]).dropAll(pick([1001, 1011, 1012, 4000]), { terminate: random() < 0.3 })
    }
    if (random() < 0.2) {
      // slow history: backfills stay in flight while more drops and live frames arrive
      slowSearches++
      pick([live.enigma, live.rasa]).injectHttpFault({ delayMs: 5 + Math.floor(random() * 60), times: 1 + Math.floor(random() * 3) })
    }
    if (random() < 0.15) {
      malformed++
      void pick([live.enigma, live.rasa]).sendRaw(pick(['not json', '{"ack":true}', '{"quote_id":"x"}', '[]', '{"data":5}']))
    }
    if (step % 60 === 30) {
      // A stalled server sends nothing and answers no ping. It stays stalled until the client's heartbeat
      // has closed every socket that was open when the frame was published: those sockets missed it.
      stalls++
      const sim = pick([live.enigma, live.rasa])
      sim.stall()
      const opened = await s.sim.instantOpen(s.account)
      published[s.protocol] += opened.frames.length
      open.set(key, opened.quoteId)
      const stalledIds = new Set(sim.connections().map((c) => c.id))
      await expect.poll(() => sim.connections().filter((c) => stalledIds.has(c.id)).length, { timeout: 5000, interval: 10 }).toBe(0)
      sim.resume()
    }
    await pause(random() * 8)
  }

  // Expected: enigma every published frame; rasa at least the latest state of every quote.
  const expected = streams.map((s) => {
    const mine = (address: string | null | undefined) => address?.toLowerCase() === s.account.toLowerCase()
    const ids =
      s.protocol === 'enigma'
        ? s.sim.documents().filter((d) => mine(d.address)).map((d) => d.data.id!)
        : s.sim.positionStates().filter((p) => mine(p.counterparty_address)).map((p) => p.id!)
    return new Set(ids)
  })
  const missing = () => streams.reduce((sum, s, i) => sum + [...expected[i]!].filter((id) => !s.delivered.some((n) => n.id === id)).length, 0)
  try {
    await expect.poll(missing, { timeout: 20_000, interval: 50 }).toBe(0)
  } catch (error) {
    for (const [i, s] of streams.entries()) {
      const lost = [...expected[i]!].filter((id) => !s.delivered.some((n) => n.id === id))
      if (lost.length > 0) console.log(`missing on ${s.protocol} ${s.account}: ${lost.join(', ')}`)
    }
    throw error
  }

  const delivered = streams.reduce((sum, s) => sum + s.delivered.length, 0)
  const duplicates = streams.reduce((sum, s) => sum + s.delivered.length - new Set(s.delivered.map((n) => n.id)).size, 0)
  const backfilled = streams.reduce((sum, s) => sum + s.delivered.filter((n) => n.source === 'backfill').length, 0)
  for (const s of streams) {
    for (const quote of new Set(s.delivered.map((n) => n.quoteId))) {
      const times = s.delivered.filter((n) => n.quoteId === quote).map((n) => n.modifyTime!)
      expect(times).toEqual([...times].sort((a, b) => a - b))
    }
  }
  console.log(
    `resume chaos seed ${seed}: published ${published.enigma + published.rasa} (enigma ${published.enigma}, rasa ${published.rasa} in ${live.rasa.positionStates().length} latest states), delivered ${delivered} (${backfilled} by backfill), duplicates ${duplicates}, missing ${missing()}, drops ${drops}, stalls ${stalls}, malformed ${malformed}, slow searches ${slowSearches}`,
  )
  expect(duplicates).toBe(0)
  expect(live.enigma.documents()).toHaveLength(published.enigma)
  expect(drops).toBeGreaterThanOrEqual(50)
  expect(backfilled).toBeGreaterThan(0)

  for (const s of streams) s.sub!.unsubscribe()
  await expect.poll(() => live.client.stats(), { timeout: 5000 }).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  await expect.poll(() => live.enigma.connections().length + live.rasa.connections().length, { timeout: 5000 }).toBe(0)
}, 60_000)
