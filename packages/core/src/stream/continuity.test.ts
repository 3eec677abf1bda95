import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import type { NotificationEvent } from './NotificationEvent.js'

// Continuity over real sockets and HTTP to the simulators (docs/guide/continuity.md): what each stream
// says of itself, in order, the moment it changes.

let live: Live
beforeEach(async () => {
  live = await startLive({ reconnect: { baseDelayMs: 50, maxDelayMs: 100 }, search: { retries: 0 } })
})
afterEach(() => live.stop())

/** The continuity a stream said, in order, as `state reason`. */
const said = (values: NotificationEvent[]) => values.flatMap((e) => (e.type === 'continuity' ? [`${e.continuity.state}${e.continuity.reason ? ` ${e.continuity.reason}` : ''}`] : []))
const last = (values: NotificationEvent[]) => said(values).at(-1)
/** The last continuity value a stream said. */
const latest = (values: NotificationEvent[]) => values.flatMap((e) => (e.type === 'continuity' ? [e.continuity] : [])).at(-1)

describe.each(['enigma', 'rasa'] as const)('%s', (protocol) => {
  it('a resume stream: catching-up while it connects, complete when open; a drop with redials refused says catching-up before any frame, complete once its backfill ends', async () => {
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: true }))
    await events.until((v) => last(v) === 'complete')
    const opened = said(events.values)
    expect(opened[0]).toBe('catching-up connecting')
    sim.refuseSockets()
    await sim.dropAll(1012)
    await events.until((v) => last(v) === 'catching-up socket-down')
    // Nothing was published: the stream knows of the gap from the drop alone.
    expect(events.values.some((e) => e.type === 'notification')).toBe(false)
    sim.refuseSockets(false)
    await events.until((v) => last(v) === 'complete' && said(v).length > opened.length)
    expect(said(events.values).slice(opened.length)).toEqual(['catching-up socket-down', 'catching-up backfill', 'complete'])
    // Each value is frozen and dated.
    const c = latest(events.values)!
    expect(Object.isFrozen(c) && c.since > 0).toBe(true)
  })

  it('a live-only stream is complete once open and incomplete (no-resume) for good after a drop, reconnected or not', async () => {
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }))
    await events.until((v) => last(v) === 'complete')
    await sim.dropAll(1012)
    await events.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open').length === 2)
    await sim.waitForSubscribers(accounts[0])
    await sim.instantOpen(accounts[0])
    await events.until((v) => v.filter((e) => e.type === 'notification').length === 3)
    expect(said(events.values)).toEqual(['catching-up connecting', 'complete', 'incomplete no-resume'])
    expect(latest(events.values)?.missing?.from).toBeGreaterThan(1_700_000_000)
  })

  it('a truncated backfill leaves the stream incomplete (truncated) for good, with where the missing part starts', async () => {
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: { maxBackfillRows: 1 } }))
    await events.until((v) => last(v) === 'complete')
    sim.refuseSockets()
    await sim.dropAll(1012)
    await events.until((v) => last(v) === 'catching-up socket-down')
    await sim.instantOpen(accounts[0])
    await sim.instantOpen(accounts[0])
    sim.refuseSockets(false)
    await events.until((v) => last(v) === 'incomplete truncated')
    await sim.instantOpen(accounts[0])
    await events.until((v) => v.filter((e) => e.type === 'notification' && e.notification.source === 'live').length === 3)
    expect(last(events.values)).toBe('incomplete truncated')
    const truncated = events.values.find((e) => e.type === 'status' && e.backfill?.state === 'truncated')
    expect(latest(events.values)?.missing).toEqual({ from: truncated?.type === 'status' ? truncated.backfill?.since : -1 })
  })

  it('history failing three reads in a row is incomplete (history-unavailable); the next read that succeeds makes it complete', async () => {
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: true }))
    await events.until((v) => last(v) === 'complete')
    sim.injectHttpFault({ status: 503, times: 3 })
    await sim.dropAll(1012)
    await events.until((v) => last(v) === 'incomplete history-unavailable')
    expect(events.values.filter((e) => e.type === 'error' && e.error.code !== 'BACKFILL_TRUNCATED').length).toBe(3)
    await events.until((v) => last(v) === 'complete' && said(v).includes('incomplete history-unavailable'))
    const after = said(events.values).slice(said(events.values).indexOf('incomplete history-unavailable'))
    expect(after).toEqual(['incomplete history-unavailable', 'complete'])
  })
})

it('rasa: a transition recovered from history, which keeps only the latest state, leaves a notification stream incomplete (latest-state-only) and its quote book complete (a book needs only latest states); enigma, which keeps every transition, complete', async () => {
  const streams = (['enigma', 'rasa'] as const).map((protocol) => record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: true })))
  const book = record(live.client.quotes({ account: accounts[0], solverId: 'beta' }))
  await Promise.all(streams.map((s) => s.until((v) => last(v) === 'complete')))
  await book.until((v) => v.at(-1)?.continuity?.state === 'complete')
  for (const sim of [live.enigma, live.rasa]) {
    sim.refuseSockets()
    await sim.dropAll(1012)
  }
  await Promise.all(streams.map((s) => s.until((v) => last(v) === 'catching-up socket-down')))
  await live.enigma.instantOpen(accounts[0])
  await live.rasa.instantOpen(accounts[0])
  for (const sim of [live.enigma, live.rasa]) sim.refuseSockets(false)
  await streams[0]!.until((v) => last(v) === 'complete' && v.some((e) => e.type === 'notification'))
  await streams[1]!.until((v) => last(v) === 'incomplete latest-state-only')
  expect(streams[0]!.values.filter((e) => e.type === 'notification').length).toBe(3)
  expect(streams[1]!.values.filter((e) => e.type === 'notification').length).toBe(1)
  // The book went through the same drop and backfill, and is whole with the quote's latest state.
  await book.until((v) => v.at(-1)?.quotes.length === 1 && v.at(-1)?.continuity?.state === 'complete')
  const states = book.values.map((b) => b.continuity?.state).filter((c, i, all) => c !== all[i - 1])
  expect(states).toEqual(['catching-up', 'complete', 'catching-up', 'complete'])
  expect(JSON.parse(JSON.stringify(book.values.at(-1))).continuity.state).toBe('complete')
})

describe.each(['enigma', 'rasa'] as const)('%s verification', (protocol) => {
  it('a notification stored but never sent while the socket stays open (a silent loss) is delivered once, from history, counted, and said: catching-up (silent-loss), then complete on enigma, incomplete (latest-state-only) on rasa', async () => {
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: { verify: { intervalMs: 1_000 } } }))
    await events.until((v) => last(v) === 'complete')
    await sim.waitForSubscribers(accounts[0])
    const t = Math.floor(Date.now() / 1000)
    await sim.publish({ id: 'unsent', quote_id: 77, temp_quote_id: -77, modify_time: t, counterparty_address: accounts[0], last_seen_action: 'InstantRFQ', action_status: 'success' }, { live: false })
    const got = () => events.values.filter((e) => e.type === 'notification' && e.notification.id === 'unsent')
    await events.until(() => got().length === 1 && (last(events.values) === 'complete' || last(events.values) === 'incomplete latest-state-only'))
    expect(got().map((e) => e.type === 'notification' && e.notification.source)).toEqual(['backfill'])
    expect(live.client.stats().continuity.silentLosses).toBe(1)
    const after = said(events.values).slice(said(events.values).lastIndexOf('complete', -2) + 1)
    expect(after).toEqual(protocol === 'enigma' ? ['catching-up silent-loss', 'complete'] : ['incomplete latest-state-only'])
    // The next verifications find nothing more and say nothing.
    const requests = sim.httpRequests().length
    const told = said(events.values).length
    await events.until(() => sim.httpRequests().length >= requests + 2)
    expect(got()).toHaveLength(1)
    expect(said(events.values)).toHaveLength(told)
    expect(live.client.stats().continuity.silentLosses).toBe(1)
  }, 20_000)
})

it('resume.expectedEveryMs: a stream that hears nothing says catching-up (quiet) and verifies at once; a frame stored and never sent is found by it, once', async () => {
  const sim = live.enigma
  const events = record(live.client.events({ account: accounts[0], solverId: 'alpha' }, { resume: { verify: false, expectedEveryMs: 1_000 } }))
  await events.until((v) => last(v) === 'complete')
  await events.until((v) => said(v).includes('catching-up quiet') && last(v) === 'complete')
  const first = said(events.values).indexOf('complete')
  expect(said(events.values).slice(first, first + 3)).toEqual(['complete', 'catching-up quiet', 'complete'])
  await sim.waitForSubscribers(accounts[0])
  await sim.publish({ id: 'unsent', quote_id: 78, temp_quote_id: -78, modify_time: Math.floor(Date.now() / 1000), counterparty_address: accounts[0], last_seen_action: 'InstantRFQ', action_status: 'success' }, { live: false })
  await events.until((v) => v.some((e) => e.type === 'notification' && e.notification.id === 'unsent') && last(v) === 'complete')
  expect(said(events.values)).toContain('catching-up silent-loss')
  expect(live.client.stats().continuity.silentLosses).toBe(1)
  // Quiet checks go on (nothing arrives): what was found is not delivered again.
  const told = said(events.values).length
  await events.until((v) => said(v).length >= told + 2)
  expect(events.values.filter((e) => e.type === 'notification')).toHaveLength(1)
  expect(() => live.client.events({ account: accounts[0] }, { resume: { expectedEveryMs: 10 } })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('resume.expectedEveryMs must be a number of milliseconds from 1000') }))
}, 20_000)
