import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { record } from '@solver-notifications/test-support'
import { createConfig } from '../config/createConfig.js'
import { type NotificationsClient, createNotificationsClient } from '../client/createNotificationsClient.js'
import type { Lifecycle, LifecycleEvent } from '../transport/Lifecycle.js'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'
import { memoryCheckpoints } from './resume/CheckpointStore.js'

// Delivery you can trust: each scenario that lost notifications silently, against the
// real simulator over real sockets and HTTP.

const A = '0xAbC0000000000000000000000000000000000001' as const
const B = '0xbBbB000000000000000000000000000000000002' as const
const T0 = Math.floor(Date.now() / 1000)

let sims: SolverSimulator[] = []
let clients: NotificationsClient[] = []
afterEach(async () => {
  for (const c of clients) c.close()
  await Promise.all(sims.map((s) => s.close()))
  sims = []
  clients = []
})

async function setup(protocol: 'enigma' | 'rasa', simOptions: { enigmaOrder?: 'newest' | 'oldest' | 'shuffled' } = {}, clientOptions: Record<string, unknown> = {}) {
  const sim = await startSolverSimulator({ protocol, ...simOptions })
  sims.push(sim)
  const config = createConfig({
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 's',
        solvers: { s: { url: sim.httpUrl, notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } },
      },
    },
  })
  const make = (extra: Record<string, unknown> = {}) => {
    const client = createNotificationsClient({ config, lingerMs: 20, reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, ...clientOptions, ...extra })
    clients.push(client)
    return client
  }
  return { sim, client: make(), make }
}

const frame = (quote: number, t: number, account: string = A, extra: Record<string, unknown> = {}) => ({
  id: `q${quote}-t${t}`,
  quote_id: quote,
  temp_quote_id: -quote,
  modify_time: t,
  create_time: t,
  counterparty_address: account,
  last_seen_action: 'InstantRFQ',
  action_status: 'success',
  ...extra,
})
const notes = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification] : []))
const backfills = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'status' && e.backfill ? [(e as StatusEvent).backfill!] : []))
const errors = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'error' ? [e.error] : []))
const finished = (events: NotificationEvent[], n = 1) => backfills(events).filter((b) => b.state !== 'started').length >= n

describe('busy accounts: backfill pages until the gap is covered', () => {
  it('enigma: 1,500 stored documents returned oldest first, 5 missed while down: all 5 come back', async () => {
    const { sim, client } = await setup('enigma', { enigmaOrder: 'oldest' })
    for (let i = 0; i < 1_500; i++) await sim.publish(frame(10_000 + i, T0 - 100_000 + i))
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 10))
    await events.until((v) => notes(v).length === 1)
    await sim.dropAll(1012)
    for (let i = 0; i < 5; i++) await sim.publish(frame(2 + i, T0 + 20 + i))
    await events.until((v) => finished(v, 2))
    expect(notes(events.values).map((n) => n.quoteId)).toEqual([1, 2, 3, 4, 5, 6])
    expect(backfills(events.values).at(-1)).toMatchObject({ state: 'finished', recovered: 5 })
  })

  it('rasa: states changed after the reconnect fill more than a page and do not push out the 50 missed while down', async () => {
    const { sim, client } = await setup('rasa')
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    await sim.dropAll(1012)
    for (let i = 0; i < 50; i++) await sim.publish(frame(100 + i, T0 + 10 + i))
    // the backfill is answered only after 1,000 more states changed (live, after the reconnect)
    sim.injectHttpFault({ delayMs: 400 })
    await sim.waitForSubscribers(A)
    for (let i = 0; i < 1_000; i++) await sim.publish(frame(1_000 + i, T0 + 100 + i))
    await events.until((v) => finished(v) && notes(v).length >= 1_051)
    const quotes = new Set(notes(events.values).map((n) => n.quoteId))
    expect(quotes.size).toBe(1_051)
    for (let i = 0; i < 50; i++) expect(quotes.has(100 + i)).toBe(true)
    expect(notes(events.values)).toHaveLength(1_051) // nothing twice
    // at least the 50 missed while down; states still in flight when history answered count there too
    expect(backfills(events.values).at(-1)).toMatchObject({ state: 'finished', stale: 0 })
    expect((backfills(events.values).at(-1) as { recovered: number }).recovered).toBeGreaterThanOrEqual(50)
  })

  it('more than maxBackfillRows to recover is truncated, with an error saying how many rows were left', async () => {
    const { sim, client } = await setup('rasa')
    const events = record(client.events({ account: A }, { resume: { maxBackfillRows: 100 } }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    await sim.dropAll(1012)
    for (let i = 0; i < 250; i++) await sim.publish(frame(100 + i, T0 + 10 + i))
    await events.until((v) => finished(v, 2))
    expect(backfills(events.values).at(-1)).toMatchObject({ state: 'truncated', recovered: 100, left: 151 }) // 150 unread rows and the one the stream had live
    expect(errors(events.values).map((e) => e.code)).toEqual(['BACKFILL_TRUNCATED'])
    expect(client.stats().backfills).toMatchObject({ runs: 2, truncated: 1 }) // the first open's, then the gap's
  })
})

describe('history the client cannot trust', () => {
  it('a rasa history row of another account is never delivered as this one’s', async () => {
    const { sim, client } = await setup('rasa')
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    sim.injectHttpFault({ rawBody: JSON.stringify({ count: 2, position_state: [frame(7, T0 + 5, B), frame(8, T0 + 6)] }) })
    await sim.dropAll(1012)
    await events.until((v) => finished(v, 2))
    expect(notes(events.values).map((n) => [n.quoteId, n.account])).toEqual([
      [1, A],
      [8, A],
    ])
    expect(client.stats().backfills.foreign).toBe(1)
  })

  it.each(['enigma', 'rasa'] as const)('%s: a different transition that reuses an earlier id is delivered and counted (live and from history), the same content twice is not', async (protocol) => {
    const { sim, client } = await setup(protocol)
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1, A, { id: 'same-id', last_seen_action: 'InstantRFQ' }))
    await sim.publish(frame(1, T0 + 2, A, { id: 'same-id', last_seen_action: 'FillLimitOrderOpen', state_type: 'report', filled_amount_open: '1.5' }))
    await events.until((v) => notes(v).length === 2)
    await sim.dropAll(1012)
    // missed while down: another transition under the same id again
    await sim.publish(frame(1, T0 + 3, A, { id: 'same-id', last_seen_action: 'FillOrderInstantClose', state_type: 'report', filled_amount_close: '1.5' }))
    await events.until((v) => finished(v, 2))
    await sim.waitForSubscribers(A)
    // the first transition again, same content: a duplicate, not a new one
    await sim.publish(frame(1, T0 + 1, A, { id: 'other-id', last_seen_action: 'InstantRFQ' }))
    await sim.publish(frame(2, T0 + 4, A, { id: 'marker' }))
    await events.until((v) => notes(v).some((n) => n.id === 'marker'))
    expect(notes(events.values).map((n) => `${n.id}@${n.modifyTime! - T0}`)).toEqual(['same-id@1', 'same-id@2', 'same-id@3', 'marker@4'])
    expect(client.stats().frames.idReused).toBe(2)
  })

  it('a rasa history row with no counterparty_address is foreign, like its live frame (unrouted)', async () => {
    const { sim, client } = await setup('rasa')
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    sim.injectHttpFault({ rawBody: JSON.stringify({ count: 2, position_state: [frame(7, T0 + 2, A, { id: 'nobody', counterparty_address: undefined }), frame(8, T0 + 3, A, { id: 'mine' })] }) })
    await sim.dropAll(1012)
    await events.until((v) => finished(v, 2))
    expect(notes(events.values).map((n) => n.id)).toEqual([`q1-t${T0 + 1}`, 'mine'])
    expect(client.stats().backfills.foreign).toBe(1)
  })

  it('one timestamp in milliseconds does not poison the quote: later updates flow, the next gap is recovered, and it is reported', async () => {
    const T0 = Math.floor(Date.now() / 1000) // this test's own clock: a stream's position starts when it subscribes
    const { sim, client } = await setup('rasa')
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await sim.publish(frame(1, (T0 + 2) * 1000, A, { id: 'ms' }))
    await sim.publish(frame(1, T0 + 3))
    await events.until((v) => notes(v).length === 3)
    await sim.dropAll(1012)
    await sim.publish(frame(1, T0 + 4, A, { id: 'missed' }))
    await events.until((v) => finished(v, 2))
    expect(notes(events.values).map((n) => n.id)).toEqual([`q1-t${T0 + 1}`, 'ms', `q1-t${T0 + 3}`, 'missed'])
    expect(errors(events.values).map((e) => e.code)).toEqual(['IMPLAUSIBLE_TIMESTAMP'])
  })

  it('a history answer trickled past the deadline fails that attempt at the deadline: held live frames flow, then the retry recovers', async () => {
    const { sim, client } = await setup('rasa', {}, { search: { timeoutMs: 1_500 } })
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    sim.injectHttpFault({ trickleMs: 10_000 })
    await sim.dropAll(1012)
    await sim.publish(frame(2, T0 + 2, A, { id: 'missed' }))
    await events.until((v) => backfills(v).length === 3)
    await sim.waitForSubscribers(A)
    await sim.publish(frame(3, T0 + 3, A, { id: 'live' }))
    await events.until((v) => notes(v).some((n) => n.id === 'missed'))
    const order = events.values.flatMap((e) => (e.type === 'error' ? [`error ${e.error.code}`] : e.type === 'notification' ? [e.notification.id] : []))
    // the live frame was held, then released when the attempt timed out; the retry brought the missed one
    expect(order.slice(1)).toEqual(['error TIMEOUT', 'live', 'missed'])
  })

  it('live frames held behind a stalled backfill stay bounded by maxHeldFrames and go out in order', async () => {
    const { sim, client } = await setup('rasa')
    const events = record(client.events({ account: A }, { resume: { maxHeldFrames: 10 } }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    sim.injectHttpFault({ delayMs: 3_000 })
    await sim.dropAll(1012)
    await events.until((v) => backfills(v).length === 3)
    await sim.waitForSubscribers(A)
    for (let i = 0; i < 35; i++) await sim.publish(frame(100 + i, T0 + 100 + i))
    await events.until((v) => notes(v).length === 31)
    expect(backfills(events.values)).toHaveLength(3) // the first open's (started, finished), then this one still in flight: only "started"
    expect(notes(events.values).slice(1).map((n) => n.quoteId)).toEqual(Array.from({ length: 30 }, (_, i) => 100 + i))
  })
})

describe('first load, reload and sleep', () => {
  it.each(['enigma', 'rasa'] as const)('%s: an app that searched history, then subscribes with since, misses nothing published in between', async (protocol) => {
    const { sim, client } = await setup(protocol)
    await sim.publish(frame(1, T0 - 50))
    const snapshot = await client.search({ account: A })
    const snapshotAt = T0 - 10
    // published after the snapshot was taken and before the app subscribed
    await sim.publish(frame(2, T0 - 5))
    await sim.publish(frame(3, T0 - 4))
    const events = record(client.events({ account: A }, { resume: { since: snapshotAt } }))
    await events.until((v) => finished(v))
    await sim.waitForSubscribers(A)
    await sim.publish(frame(4, T0 + 30))
    await events.until((v) => notes(v).some((n) => n.quoteId === 4))
    expect(snapshot.rows).toHaveLength(1)
    expect(notes(events.values).map((n) => [n.quoteId, n.source])).toEqual([
      [2, 'backfill'],
      [3, 'backfill'],
      [4, 'live'],
    ])
  })

  it.each(['enigma', 'rasa'] as const)('%s: a reload (a new client sharing the checkpoint store) resumes where the last one left off', async (protocol) => {
    const T0 = Math.floor(Date.now() / 1000) // this test's own clock: a stream's position starts when it subscribes
    const { sim, client, make } = await setup(protocol)
    const checkpoint = memoryCheckpoints()
    const first = record(client.events({ account: A }, { resume: { checkpoint } }))
    await sim.waitForSubscribers(A)
    await sim.publish(frame(1, T0 + 1))
    await sim.publish(frame(2, T0 + 2))
    await first.until((v) => notes(v).length === 2)
    first.subscription.unsubscribe() // the page goes away: the position is written
    client.close()
    expect([...checkpoint.entries().values()]).toEqual([T0 + 2])
    await sim.publish(frame(3, T0 + 3)) // while no page is open
    const second = record(make().events({ account: A }, { resume: { checkpoint } }))
    await second.until((v) => finished(v))
    await sim.waitForSubscribers(A)
    await sim.publish(frame(4, T0 + 4))
    await second.until((v) => notes(v).some((n) => n.quoteId === 4))
    // at-least-once at the checkpoint's own second: quote 2 (T0 + 2) may come again; nothing is missing
    expect(notes(second.values).map((n) => n.quoteId)).toEqual([2, 3, 4])
  })

  it.each(['enigma', 'rasa'] as const)('%s: the reload loss — nothing delivered yet, a drop under a slow backfill, a quote held behind it, released: the reload recovers the quote', async (protocol) => {
    const { sim, client, make } = await setup(protocol)
    const checkpoint = memoryCheckpoints()
    const first = record(client.events({ account: A }, { resume: { checkpoint } }))
    await sim.waitForSubscribers(A)
    sim.injectHttpFault({ delayMs: 3_000, times: 5 })
    await sim.dropAll(1012)
    await first.until((v) => backfills(v).length === 1) // started; history answers in 3 s
    await sim.waitForSubscribers(A)
    for (const [i, action] of (['InstantRFQ', 'InstantRFQ', 'FillOrderInstantClose'] as const).entries()) await sim.publish(frame(9, T0 + 1 + i, A, { id: `held-${i}`, last_seen_action: action }))
    const look = record(client.inspect({ intervalMs: 50 }))
    await look.until((v) => v.at(-1)?.sockets.some((s) => s.streams.some((st) => st.held === 3)) === true)
    look.subscription.unsubscribe()
    expect(notes(first.values)).toEqual([])
    first.subscription.unsubscribe() // the page goes away while the quote is held
    client.close()
    sim.clearHttpFaults()
    const written = checkpoint.entries().get(`1:s:${A.toLowerCase()}`)
    expect(written).toBeDefined()
    expect(written!).toBeLessThanOrEqual(T0 + 1)
    const second = record(make().events({ account: A }, { resume: { checkpoint } }))
    await second.until((v) => finished(v))
    const ids = notes(second.values).map((n) => n.id)
    // rasa keeps each quote's latest state only; enigma every transition
    expect(ids).toEqual(protocol === 'rasa' ? ['held-2'] : ['held-0', 'held-1', 'held-2'])
    expect(errors(second.values)).toEqual([])
  })

  it.each(['enigma', 'rasa'] as const)('%s: the first open is a gap like any other: what was stored while the first dials were refused is backfilled', async (protocol) => {
    const T0 = Math.floor(Date.now() / 1000) // this test's own clock: a stream's position starts when it subscribes
    const { sim, client } = await setup(protocol)
    sim.refuseSockets()
    const events = record(client.events({ account: A }, { resume: true }))
    await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'reconnecting'))
    await sim.publish(frame(1, T0 + 1, A, { id: 'stored-1' }))
    await sim.publish(frame(2, T0 + 2, A, { id: 'stored-2' }))
    await sim.publish(frame(3, T0 + 3, A, { id: 'stored-3' }))
    sim.refuseSockets(false)
    await events.until((v) => finished(v))
    await sim.waitForSubscribers(A)
    await sim.publish(frame(4, T0 + 4, A, { id: 'live-4' }))
    await events.until((v) => notes(v).some((n) => n.id === 'live-4'))
    expect(notes(events.values).map((n) => `${n.id}:${n.source}`)).toEqual(['stored-1:backfill', 'stored-2:backfill', 'stored-3:backfill', 'live-4:live'])
    expect(backfills(events.values).at(-1)).toMatchObject({ state: 'finished', recovered: 3, stale: 0 })
  })

  it('a socket that died while the machine slept is replaced on wake, and the resume stream catches up', async () => {
    const T0 = Math.floor(Date.now() / 1000) // this test's own clock: a stream's position starts when it subscribes
    let emit!: (event: LifecycleEvent) => void
    const lifecycle: Lifecycle = {
      subscribe(listener) {
        emit = listener
        return () => {}
      },
    }
    // heartbeat off: like a browser, which cannot send protocol pings
    const { sim, client } = await setup('rasa', {}, { lifecycle, heartbeat: false })
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finished(v)) // the first open's backfill (from subscribing)
    await sim.publish(frame(1, T0 + 1))
    await events.until((v) => notes(v).length === 1)
    sim.stall() // the link is dead: the server keeps the socket but nothing arrives
    await sim.publish(frame(2, T0 + 2, A, { id: 'slept' }))
    sim.resume()
    emit('wake')
    await events.until((v) => finished(v, 2))
    expect(notes(events.values).map((n) => [n.id, n.source])).toEqual([
      [`q1-t${T0 + 1}`, 'live'],
      ['slept', 'backfill'],
    ])
    expect(events.values.filter((e) => e.type === 'status').map((e) => (e as StatusEvent).status)).toContain('reconnecting')
  })
})
