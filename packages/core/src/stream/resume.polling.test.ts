import { afterEach, describe, expect, it } from 'vitest'
import { record, startSolver } from '@solver-notifications/test-support'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'

// History as a second source: the simulator refuses sockets (a proxy that blocks WebSockets, a socket
// endpoint down) while history answers.

const A = '0xAbC0000000000000000000000000000000000001' as const
const T0 = Math.floor(Date.now() / 1000)
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
    await sim.publish(frame(1, T0 + 1, 'stored-1'))
    await events.until((v) => notes(v).some((n) => n.id === 'stored-1'))
    await sim.publish(frame(2, T0 + 2, 'stored-2'))
    await events.until((v) => notes(v).some((n) => n.id === 'stored-2'))
    expect(notes(events.values).map((n) => n.source)).toEqual(['backfill', 'backfill'])
    expect(statuses(events.values).some((e) => e.polling === true)).toBe(true)
    expect(statuses(events.values).some((e) => e.status === 'open')).toBe(false)
    sim.refuseSockets(false)
    await events.until((v) => statuses(v).some((e) => e.status === 'open'))
    expect(statuses(events.values).find((e) => e.status === 'open')?.polling).toBe(false)
    await sim.waitForSubscribers(A)
    await sim.publish(frame(3, T0 + 3, 'live-3'))
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
    await sim.publish(frame(1, T0 + 1, 'between'))
    sim.refuseSockets(false)
    await events.until((v) => statuses(v).some((e) => e.status === 'open'))
    await sim.waitForSubscribers(A)
    // The poll answers (empty) after the socket is back.
    hold.release()
    await sim.publish(frame(2, T0 + 2, 'live-after'))
    await events.until((v) => notes(v).some((n) => n.id === 'live-after'))
    expect(notes(events.values).map((n) => [n.id, n.source])).toEqual([
      ['between', 'backfill'],
      ['live-after', 'live'],
    ])
  })

  it('poll: false reads no history while the socket is down', async () => {
    const { sim, client } = await setup(protocol)
    sim.refuseSockets()
    const events = record(client.events({ account: A }, { resume: { poll: false } }))
    await events.until((v) => statuses(v).filter((e) => e.status === 'reconnecting').length >= 2)
    await sim.publish(frame(1, T0 + 1, 'stored-1'))
    await events.until((v) => statuses(v).filter((e) => e.status === 'reconnecting').length >= 3)
    expect(notes(events.values)).toEqual([])
    expect(sim.httpRequests()).toHaveLength(0)
  })
})

it('a quote book shows quotes from history while its socket is refused', async () => {
  const { sim, client } = await setup('rasa')
  sim.refuseSockets()
  const books = record(client.quotes({ account: A }, { poll: { afterMs: 100, intervalMs: 150 } }))
  await sim.publish(frame(5, T0 + 5, 'q5'))
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
  await sim.publish(frame(9, T0 + 9, 'after-close'))
  await kept.until((v) => notes(v).some((n) => n.id === 'after-close'))
  expect(notes(plain.values)).toEqual([])
  expect(kept.completed).toBe(false)
  // closing the client ends it too, and leaves no timer behind
  closing.close()
  await kept.complete()
  expect(closing.stats().timers).toBe(0)
})
