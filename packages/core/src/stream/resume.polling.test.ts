import { afterEach, describe, expect, it } from 'vitest'
import { record, startSolver } from '@solver-notifications/test-support'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'

// History as a second source: the simulator refuses sockets (a proxy that blocks WebSockets, a socket
// endpoint down) while history answers.

const A = '0xAbC0000000000000000000000000000000000001' as const
// Frame times are taken when published: a stream resumes from a little before it subscribed, and rasa's
// history filters by modify_time, so a time fixed when the file loaded falls behind on a slow run.
const now = () => Math.floor(Date.now() / 1000)
let stops: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(stops.map((stop) => stop()))
  stops = []
})

async function setup(protocol: 'enigma' | 'rasa') {
  // Backoff far above the poll interval: while refused, what arrives comes from polling.
  const { sim, make, stop } = await startSolver(protocol, {}, { lingerMs: 0, reconnect: { baseDelayMs: 400, maxDelayMs: 800 } })
  stops.push(stop)
  return { sim, client: make(), make }
}
const frame = (quote: number, t: number, id: string) => ({ id, quote_id: quote, temp_quote_id: -quote, modify_time: t, create_time: t, counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'success' })
const notes = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification] : []))
const statuses = (events: NotificationEvent[]) => events.filter((e): e is StatusEvent => e.type === 'status')

describe.each(['enigma', 'rasa'] as const)('%s: polling while the socket is down', (protocol) => {
  it('delivers from history while sockets are refused, says polling: true, and stops when the socket opens; nothing twice', async () => {
    const { sim, client } = await setup(protocol)
    sim.refuseSockets()
    const events = record(client.events({ account: A }, { resume: { poll: { afterMs: 100, intervalMs: 150 } } }))
    await events.until((v) => statuses(v).some((e) => e.status === 'reconnecting'))
    await sim.publish(frame(1, now() + 1, 'stored-1'))
    await events.until((v) => notes(v).some((n) => n.id === 'stored-1'))
    await sim.publish(frame(2, now() + 2, 'stored-2'))
    await events.until((v) => notes(v).some((n) => n.id === 'stored-2'))
    expect(notes(events.values).map((n) => n.source)).toEqual(['backfill', 'backfill'])
    expect(statuses(events.values).some((e) => e.polling === true)).toBe(true)
    expect(statuses(events.values).some((e) => e.status === 'open')).toBe(false)
    sim.refuseSockets(false)
    await events.until((v) => statuses(v).some((e) => e.status === 'open'))
    expect(statuses(events.values).find((e) => e.status === 'open')?.polling).toBe(false)
    await sim.waitForSubscribers(A)
    await sim.publish(frame(3, now() + 3, 'live-3'))
    await events.until((v) => notes(v).some((n) => n.id === 'live-3'))
    const ids = notes(events.values).map((n) => n.id)
    expect(ids).toEqual(['stored-1', 'stored-2', 'live-3'])
    // polling has stopped: later status events say nothing of it
    const afterOpen = statuses(events.values).slice(statuses(events.values).findIndex((e) => e.status === 'open') + 1)
    expect(afterOpen.every((e) => e.polling !== true)).toBe(true)
  })

  it('a poll in flight when the socket opens: what was stored after history read it and before the socket subscribed is backfilled, once', async () => {
    const { sim, client } = await setup(protocol)
    sim.refuseSockets()
    const hold = sim.holdHttpAnswers()
    const events = record(client.events({ account: A }, { resume: { poll: { afterMs: 100, intervalMs: 150 } } }))
    // The poll's request reached history and was read (nothing stored yet); its answer is held.
    await hold.held(1)
    await sim.publish(frame(1, now() + 1, 'between'))
    sim.refuseSockets(false)
    await events.until((v) => statuses(v).some((e) => e.status === 'open'))
    await sim.waitForSubscribers(A)
    // The poll answers (empty) after the socket is back.
    hold.release()
    await sim.publish(frame(2, now() + 2, 'live-after'))
    await events.until((v) => notes(v).some((n) => n.id === 'live-after'))
    expect(notes(events.values).map((n) => [n.id, n.source])).toEqual([
      ['between', 'backfill'],
      ['live-after', 'live'],
    ])
  })

  it('polls honour Retry-After: after a 429 with Retry-After: 1, the next history request waits at least a second', async () => {
    const { sim, client } = await setup(protocol)
    sim.refuseSockets()
    sim.injectHttpFault({ times: 3, status: 429, retryAfterSeconds: 1 })
    const failedAt: number[] = []
    const events = record(client.events({ account: A }, { resume: { poll: { afterMs: 0, intervalMs: 100 } } }))
    await events.until((v) => {
      const n = v.filter((e) => e.type === 'error' && e.error.code === 'HTTP_STATUS').length
      if (n > failedAt.length) failedAt.push(Date.now())
      return n >= 3
    })
    // Each failure's Retry-After holds: the next request (and so its failure) comes a second later at the earliest.
    for (let i = 1; i < failedAt.length; i++) expect(failedAt[i]! - failedAt[i - 1]!).toBeGreaterThanOrEqual(990)
    // And polling goes on afterwards: the real answer comes.
    await sim.publish(frame(4, now() + 4, 'after-429'))
    await events.until((v) => notes(v).some((n) => n.id === 'after-429'))
  })

  it('poll: false reads no history while the socket is down', async () => {
    const { sim, client } = await setup(protocol)
    sim.refuseSockets()
    const events = record(client.events({ account: A }, { resume: { poll: false } }))
    await events.until((v) => statuses(v).filter((e) => e.status === 'reconnecting').length >= 2)
    await sim.publish(frame(1, now() + 1, 'stored-1'))
    await events.until((v) => statuses(v).filter((e) => e.status === 'reconnecting').length >= 3)
    expect(notes(events.values)).toEqual([])
    expect(sim.httpRequests()).toHaveLength(0)
  })
})

it('a quote book shows quotes from history while its socket is refused', async () => {
  const { sim, client } = await setup('rasa')
  sim.refuseSockets()
  const books = record(client.quotes({ account: A }, { poll: { afterMs: 100, intervalMs: 150 } }))
  await sim.publish(frame(5, now() + 5, 'q5'))
  await books.until((v) => v.at(-1)!.quotes.some((q) => q.quoteId === 5))
  expect(books.values.at(-1)!.status).not.toBe('open')
})

it('refused for good (closed), the stream keeps polling only with poll.whenClosed', async () => {
  const { sim, make } = await setup('rasa')
  const closing = make({ reconnect: { maxAttempts: 0 } })
  sim.refuseSockets()
  const plain = record(closing.events({ account: A }, { resume: { poll: { afterMs: 50, intervalMs: 100 } } }))
  const kept = record(closing.events({ account: A }, { resume: { poll: { afterMs: 50, intervalMs: 100, whenClosed: true } } }))
  await plain.complete()
  await sim.publish(frame(9, now() + 9, 'after-close'))
  await kept.until((v) => notes(v).some((n) => n.id === 'after-close'))
  expect(notes(plain.values)).toEqual([])
  expect(kept.completed).toBe(false)
  // closing the client ends it too, and leaves no timer behind
  closing.close()
  await kept.complete()
  expect(closing.stats().timers).toBe(0)
})

it('polls of one endpoint are spread over the streams polling (at least interval / streams apart, with headroom), and nothing is left armed after', async () => {
  const { sim, make } = await setup('rasa')
  sim.refuseSockets() // every history request here is a poll
  const starts: number[] = []
  const counted: typeof fetch = (input, init) => {
    starts.push(performance.now())
    return fetch(input, init)
  }
  const client = make({ search: { fetch: counted } } as Parameters<typeof make>[0])
  const accounts = ['1', '2', '3', '4'].map((n) => `0x${n.padStart(40, '0')}` as const)
  const subs = accounts.map((account) => client.events({ account }, { resume: { poll: { afterMs: 0, intervalMs: 400 } } }).subscribe(() => {}))
  await expect.poll(() => starts.length, { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(8)
  for (const sub of subs) sub.unsubscribe()
  // 4 streams every 400 ms: a poll every 110 ms at most (a timer may fire a little early: 5 ms of slack).
  const gaps = starts.slice(1, 8).map((t, i) => t - starts[i]!)
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(105)
  await expect.poll(() => client.stats().timers, { timeout: 5_000 }).toBe(0)
})
