import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'

let live: Live
beforeEach(async () => {
  live = await startLive({ reconnect: { baseDelayMs: 200, maxDelayMs: 400 } })
})
afterEach(() => live.stop())

describe.each(['enigma', 'rasa'] as const)('%s resume', (protocol) => {
  it('recovers what was published while the socket was down, once, marked backfill', async () => {
    const sim = live.sims[protocol]
    const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf[protocol] }, { resume: true }))
    const notes = () => events.values.flatMap((e: NotificationEvent) => (e.type === 'notification' ? [e.notification] : []))
    await expect.poll(() => sim.subscriptions().length).toBe(1)
    const finishedCount = (v: NotificationEvent[]) => v.filter((e) => e.type === 'status' && e.backfill?.state === 'finished').length
    await events.until((v) => finishedCount(v) === 1) // the first open's backfill (from subscribing)
    const before = await sim.instantOpen(accounts[0])
    await events.until(() => notes().length === 3)
    await sim.dropAll(1012)
    // published while the client waits to reconnect: the solver does not replay these
    const missed = await sim.instantOpen(accounts[0])
    await sim.fail(accounts[0])
    await events.until((v) => finishedCount(v) === 2)
    const after = await sim.closeRequest(missed.quoteId)
    await events.until(() => notes().some((n) => n.id === after.frames[2]!.id))

    const got = notes()
    const ids = got.map((n) => n.id)
    expect(new Set(ids).size).toBe(ids.length)
    const expected =
      protocol === 'enigma'
        ? [...before.frames, ...missed.frames, ...sim.documents().slice(6, 8).map((d) => d.data), ...after.frames].map((f) => f.id)
        : // rasa stores the latest state per quote: the missed quote and the failure come back as their latest states
          [...before.frames.map((f) => f.id), missed.frames[2]!.id, sim.positionStates().find((s) => s.action_status === 'failed')!.id, ...after.frames.map((f) => f.id)]
    expect(ids).toEqual(expected)
    expect(got.filter((n) => n.source === 'backfill').map((n) => n.id)).toEqual(protocol === 'enigma' ? expected.slice(3, 8) : expected.slice(3, 5))
    // after the first open's backfill (nothing to recover), the drop's
    const backfill = events.values.flatMap((e) => (e.type === 'status' && e.backfill ? [(e as StatusEvent).backfill] : [])).slice(2)
    expect(backfill).toEqual([
      { state: 'started', since: expect.any(Number) },
      { state: 'finished', since: backfill[0]!.since, recovered: protocol === 'enigma' ? 5 : 2, stale: 0 },
    ])
    expect(backfill[0]!.since).toBe(before.frames[2]!.modify_time)
    // ordered by modify_time within each quote
    for (const quote of new Set(got.map((n) => n.quoteId))) {
      const times = got.filter((n) => n.quoteId === quote).map((n) => n.modifyTime!)
      expect(times).toEqual([...times].sort((a, b) => a - b))
    }
  })
})

it('streams without resume do not backfill', async () => {
  const notes = record(live.client.notifications({ account: accounts[0], solverId: 'beta' }))
  await expect.poll(() => live.rasa.subscriptions().length).toBe(1)
  await live.rasa.dropAll(1012)
  await live.rasa.instantOpen(accounts[0])
  await expect.poll(() => live.rasa.subscriptions().length).toBe(2)
  const after = await live.rasa.instantOpen(accounts[0])
  await notes.until((v) => v.some((n) => n.id === after.frames[2]!.id))
  expect(notes.values.map((n) => n.id)).toEqual(after.frames.map((f) => f.id))
  expect(live.rasa.httpRequests()).toHaveLength(0)
})
