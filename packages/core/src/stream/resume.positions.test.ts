import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import type { ServiceError } from '../errors/ServiceError.js'
import { take } from 'rxjs'
import { type CheckpointStore, memoryCheckpoints } from './resume/CheckpointStore.js'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'

// A resume position that is not plausible unix seconds (milliseconds, 1e21, a clock days ahead) once
// made the next backfill ask for a future that never comes: it recovered nothing, said nothing and
// wrote the bad value back. Each case here failed before the fix.

let live: Live
beforeEach(async () => {
  live = await startLive({ reconnect: { baseDelayMs: 100, maxDelayMs: 200 }, search: { timeoutMs: 400 } })
})
afterEach(() => live.stop())

const nowS = () => Math.floor(Date.now() / 1000)
const errorsOf = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'error' ? [e.error as ServiceError] : []))
const notesOf = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification] : []))
const backfillsOf = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'status' && e.backfill ? [(e as StatusEvent).backfill!] : []))

it.each([
  ['milliseconds', () => Date.now()],
  ['1e21', () => 1e21],
  ['two days ahead', () => nowS() + 2 * 86_400],
  ['negative', () => -5],
  ['NaN', () => Number.NaN],
])('resume.since of %s throws INVALID_PARAMETERS at the call', (_name, since) => {
  expect(() => live.client.events({ account: accounts[0] }, { resume: { since: since() } })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('resume.since') }))
  expect(() => live.client.quotes({ account: accounts[0] }, { since: since() })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
  expect(live.client.stats().subscriptions).toBe(0)
})

describe.each(['enigma', 'rasa'] as const)('%s: an implausible stored checkpoint', (protocol) => {
  it.each([
    ['milliseconds (sync get)', () => Date.now(), false],
    ['1e21 (async get)', () => 1e21, true],
    ['two days ahead (async get)', () => nowS() + 2 * 86_400, true],
  ])('%s is ignored with INVALID_CHECKPOINT; the next drop is still backfilled; nothing implausible is written', async (_name, stored, async) => {
    const sim = live.sims[protocol]
    const written: number[] = []
    const checkpoint: CheckpointStore = {
      get: () => (async ? Promise.resolve(stored()) : stored()),
      set: (_key, value) => {
        written.push(value)
      },
    }
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: { checkpoint } }))
    await events.until((v) => errorsOf(v).length === 1)
    expect(errorsOf(events.values).map((e) => e.code)).toEqual(['INVALID_CHECKPOINT'])
    await expect.poll(() => sim.subscriptions().length).toBe(1)
    // the first open's backfill (from subscribing) first
    await events.until((v) => backfillsOf(v).some((b) => b.state === 'finished'))
    const before = await sim.instantOpen(accounts[0])
    await events.until((v) => notesOf(v).length === 3)
    await sim.dropAll(1012)
    const missed = await sim.instantOpen(accounts[0])
    await events.until((v) => backfillsOf(v).filter((b) => b.state === 'finished').length === 2)
    const finished = backfillsOf(events.values).filter((b) => b.state === 'finished')[1]!
    expect(finished.since).toBe(before.frames[2]!.modify_time)
    // enigma stores every transition, rasa the latest state of each quote
    expect(finished.recovered).toBe(protocol === 'enigma' ? 3 : 1)
    expect(notesOf(events.values).filter((n) => n.source === 'backfill').map((n) => n.quoteId)).toContain(missed.quoteId)
    events.subscription.unsubscribe()
    expect(written.length).toBeGreaterThan(0)
    const newest = Math.max(...notesOf(events.values).map((n) => n.modifyTime!))
    for (const value of written) expect(value).toBeLessThanOrEqual(newest)
  })
})

it('a checkpoint get that never settles holds live frames only until the search deadline (CHECKPOINT), then the stream flows', async () => {
  const checkpoint: CheckpointStore = { get: () => new Promise<number>(() => {}), set: () => {} }
  const events = record(live.client.events({ account: accounts[0], solverId: 'beta' }, { resume: { checkpoint } }))
  await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
  const open = await live.rasa.instantOpen(accounts[0])
  await events.until((v) => notesOf(v).length === 3)
  expect(notesOf(events.values).map((n) => n.id)).toEqual(open.frames.map((f) => f.id))
  expect(errorsOf(events.values).map((e) => [e.code, e.message.includes('no answer within 400 ms')])).toEqual([['CHECKPOINT', true]])
})

describe.each(['enigma', 'rasa'] as const)('%s: a release in the middle of a merge', (protocol) => {
  // 300 quotes stored 500 s back; a stream resuming from there merges them in one go. Letting go inside
  // that merge (a `for await` past its highWaterMark, a `take(10)`) once wrote the position at the
  // subscription's start: the next stream from the same checkpoint got none of the rows never yielded.
  const publishPast = async () => {
    const sim = live.sims[protocol]
    const base = nowS() - 500
    for (let i = 0; i < 300; i++) {
      await sim.publish({ id: `past-${i}`, quote_id: 1000 + i, temp_quote_id: -(1000 + i), modify_time: base + i, counterparty_address: accounts[0], last_seen_action: 'InstantRFQ', action_status: 'success' }, { live: false })
    }
    return base
  }
  const rest = async (store: CheckpointStore, skipped: Set<string>) => {
    const next = record(live.client.notifications({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: { checkpoint: store } }))
    await next.until((v) => [...skipped].every((id) => v.some((n) => n.id === id)))
    next.subscription.unsubscribe()
    return next.values
  }

  it('for await past highWaterMark: every row received yielded in order, then SLOW_CONSUMER, and the position written is not past the first row never yielded', async () => {
    const store = memoryCheckpoints()
    const base = await publishPast()
    const yielded: string[] = []
    let failure: unknown
    try {
      for await (const n of live.client.notifications({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: { since: base, checkpoint: store }, highWaterMark: 50 })) {
        yielded.push(n.id!)
        // A loop that stops taking (busy elsewhere) until the stream lets it go.
        if (yielded.length === 1) await vi.waitUntil(() => live.client.stats().subscriptions === 0)
      }
    } catch (error) {
      failure = error
    }
    expect((failure as ServiceError).code).toBe('SLOW_CONSUMER')
    // A prefix, in order: what was received before the release (the merge, and any live frame after it).
    const k = yielded.length
    expect(k).toBeGreaterThan(50)
    expect(yielded).toEqual(Array.from({ length: k }, (_, i) => `past-${i}`))
    const key = `42161:${live.solverOf[protocol]}:${accounts[0].toLowerCase()}`
    // Not past the first row never yielded; with every row yielded, not past the release.
    expect(store.get(key)).toBeLessThanOrEqual(k < 300 ? base + k : nowS())
    const skipped = new Set(Array.from({ length: 300 - k }, (_, i) => `past-${k + i}`))
    const again = await rest(store, skipped)
    expect(again.filter((n) => skipped.has(n.id!)).length).toBe(300 - k)
  })

  it('take(10): the position written is not past the first row not taken', async () => {
    const store = memoryCheckpoints()
    const base = await publishPast()
    const taken = record(live.client.notifications({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: { since: base, checkpoint: store } }).pipe(take(10)))
    await taken.complete()
    expect(taken.values.map((n) => n.id)).toEqual(Array.from({ length: 10 }, (_, i) => `past-${i}`))
    const skipped = new Set(Array.from({ length: 290 }, (_, i) => `past-${10 + i}`))
    const again = await rest(store, skipped)
    expect(again.filter((n) => skipped.has(n.id!)).length).toBe(290)
  })
})
