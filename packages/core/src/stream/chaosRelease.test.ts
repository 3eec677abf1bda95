import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Subscription } from 'rxjs'
import { type Live, accounts, startLive } from '@solver-notifications/test-support'
import { seededRandom } from '../../test/random.js'

let live: Live
beforeEach(async () => {
  live = await startLive({ lingerMs: 5, reconnect: { baseDelayMs: 5, maxDelayMs: 20 }, heartbeat: { intervalMs: 200, timeoutMs: 200 } })
})
afterEach(() => live.stop())

it('1,000 random subscribe/unsubscribe cycles at random moments leave 0 connections and 0 timers', async () => {
  const seed = Number(process.env.CHAOS_SEED ?? 1234)
  const random = seededRandom(seed)
  const open = new Set<Subscription>()
  const moments = ['sync', 'in-status', 'in-notification', 'microtask', 'macrotask'] as const
  let cycles = 0
  const pending: Promise<void>[] = []
  for (let i = 0; i < 1000; i++) {
    const solverId = random() < 0.5 ? 'alpha' : 'beta'
    const account = accounts[Math.floor(random() * accounts.length)]!
    const moment = moments[Math.floor(random() * moments.length)]!
    let sub: Subscription | undefined
    const release = () => {
      sub?.unsubscribe()
      if (sub) open.delete(sub)
      cycles++
    }
    let releaseNow = false
    sub = live.client.events({ account, solverId }).subscribe((event) => {
      if (moment === 'in-status' && event.type === 'status' && event.status !== 'closed' && sub) release()
      else if (moment === 'in-status' && event.type === 'status' && !sub) releaseNow = true
      if (moment === 'in-notification' && event.type === 'notification') release()
    })
    open.add(sub)
    if (releaseNow || moment === 'sync') release()
    else if (moment === 'microtask') pending.push(Promise.resolve().then(release))
    else if (moment === 'macrotask') pending.push(
        new Promise<void>((r) =>
          setImmediate(() => {
            release()
            r()
          }),
        ),
      )
    else if (moment === 'in-notification' && random() < 0.5) pending.push(live.sims[solverId === 'alpha' ? 'enigma' : 'rasa'].publish({ quote_id: i + 1, counterparty_address: account }))
    // now and then, disturb the server in the middle of everything
    if (i % 97 === 0) pending.push(live.sims[random() < 0.5 ? 'enigma' : 'rasa'].dropAll(1012))
    if (i % 10 === 0) await Promise.all(pending.splice(0))
  }
  await Promise.all(pending)
  for (const sub of [...open]) {
    sub.unsubscribe()
    open.delete(sub)
  }
  await expect.poll(() => live.client.stats(), { timeout: 5000 }).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  await expect.poll(() => live.enigma.connections().length + live.rasa.connections().length, { timeout: 5000 }).toBe(0)
  expect(cycles).toBeGreaterThan(500)
  console.log(`chaos release seed ${seed}: ${cycles} cycles released at random moments, 0 sockets, 0 timers left`)
}, 30_000)

it('detects a stalled server by heartbeat within interval + timeout, and recovers after resume', async () => {
  const events: string[] = []
  const sub = live.client.status({ account: accounts[0], solverId: 'beta' }).subscribe((s) => events.push(s))
  await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
  live.rasa.stall()
  // the exact interval + timeout bound is proven with fake timers in Connection.test.ts
  await expect.poll(() => events.includes('reconnecting'), { timeout: 2000 }).toBe(true)
  live.rasa.resume()
  await expect.poll(() => events.filter((s) => s === 'open').length, { timeout: 2000 }).toBe(2)
  sub.unsubscribe()
})
