import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { NotificationEvent } from '../stream/NotificationEvent.js'

// The real client against the in-memory simulator (testkit's startMemorySimulator): no port, no
// network; the client dials through its MemoryWebSocket and searches through its memoryFetch.

let live: Live
beforeEach(async () => {
  live = await startLive({ lingerMs: 0, reconnect: { baseDelayMs: 10, maxDelayMs: 20 } }, { memory: true })
})
afterEach(() => live.stop())

const [A] = accounts
const ids = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification.id] : []))

describe.each(['enigma', 'rasa'] as const)('%s in memory', (protocol) => {
  it('has URLs no network reaches; live frames arrive, a drop is backfilled from history, and search answers', async () => {
    const sim = live.sims[protocol]
    expect(sim.wsUrl).toMatch(/^wss:\/\/sim-\d+\.memory\.test\//)
    const stream = record(live.client.events({ account: A, solverId: live.solverOf[protocol] }, { resume: true }))
    await sim.waitForSubscribers(A)
    const first = await sim.instantOpen(A)
    await stream.until((values) => ids(values).length === first.frames.length)
    // Dropped: what is published while the socket is down comes back by backfill.
    await sim.dropAll(1012)
    sim.refuseSockets(true)
    await stream.until((values) => values.some((e) => e.type === 'status' && e.status === 'reconnecting'))
    const second = await sim.instantOpen(A)
    sim.refuseSockets(false)
    await stream.until((values) => ids(values).length >= first.frames.length + (protocol === 'enigma' ? second.frames.length : 1))
    const got = ids(stream.values)
    // enigma keeps every transition in history; rasa only each quote's latest state.
    const expected = protocol === 'enigma' ? [...first.frames, ...second.frames].map((f) => f.id) : [...first.frames.map((f) => f.id), second.frames.at(-1)!.id]
    expect(got).toEqual(expected)
    expect(stream.values.some((e) => e.type === 'status' && e.backfill?.state === 'finished' && e.backfill.recovered >= 1)).toBe(true)
    const result = await live.client.search({ solverId: live.solverOf[protocol], account: A } as never)
    expect(result.kind).toBe(protocol)
    expect(result.rows.length).toBeGreaterThan(0)
    expect(sim.httpRequests().length).toBeGreaterThan(0)
  })

  it('faults work as on loopback: a 503 with Retry-After is retried, a destroyed connection is a NETWORK error', async () => {
    const sim = live.sims[protocol]
    const params = { solverId: live.solverOf[protocol], account: A } as never
    sim.injectHttpFault({ status: 503, retryAfterSeconds: 0 })
    await expect(live.client.search(params)).resolves.toMatchObject({ kind: protocol })
    sim.injectHttpFault({ destroy: true, times: 3 })
    await expect(live.client.search(params)).rejects.toMatchObject({ code: 'NETWORK' })
  })
})
