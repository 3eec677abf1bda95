import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import type { DiagnosticEvent } from '../transport/Diagnostics.js'
import type { NotificationEvent } from './NotificationEvent.js'

// The diagnostics seam (`client.diagnostics`) against the client's own counters: what an OpenTelemetry
// bridge counts must equal `stats()` exactly, over drops, backfills and holds.

let live: Live
beforeEach(async () => {
  live = await startLive({ reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, heartbeat: { intervalMs: 50, timeoutMs: 1_000 } })
})
afterEach(() => live.stop())

const finished = (v: NotificationEvent[]) => v.filter((e) => e.type === 'status' && e.backfill && e.backfill.state !== 'started').length

describe.each(['enigma', 'rasa'] as const)('%s', (protocol) => {
  it('frame events equal frames delivered (once per frame) and recovered events backfills recovered; held frames are released; every backfill started ends; sockets and heartbeats are heard; nothing after unsubscribing', async () => {
    const sim = live.sims[protocol]
    const seen: DiagnosticEvent[] = []
    const stop = live.client.diagnostics.subscribe((e) => seen.push(e))
    const solverId = live.solverOf[protocol]
    // Two resume streams and a plain one on the same account: a frame is still one delivered event.
    const a = record(live.client.events({ account: accounts[0], solverId }, { resume: true }))
    const b = record(live.client.events({ account: accounts[0], solverId }, { resume: true }))
    const plain = record(live.client.notifications({ account: accounts[0], solverId }))
    await a.until((v) => finished(v) >= 1)
    await b.until((v) => finished(v) >= 1)
    await sim.waitForSubscribers(accounts[0])
    const first = await sim.instantOpen(accounts[0])
    await plain.until((v) => v.length >= first.frames.length)
    await sim.dropAll(1012)
    const missed = await sim.instantOpen(accounts[0])
    await a.until((v) => finished(v) >= 2 && missed.frames.slice(-1).every((f) => v.some((e) => e.type === 'notification' && e.notification.id === f.id)))
    await b.until((v) => finished(v) >= 2)
    await sim.waitForSubscribers(accounts[0])
    const after = await sim.instantOpen(accounts[0])
    await plain.until((v) => after.frames.every((f) => v.some((n) => n.id === f.id)))
    await a.until((v) => after.frames.every((f) => v.some((e) => e.type === 'notification' && e.notification.id === f.id)))
    const stats = live.client.stats()
    const count = (type: DiagnosticEvent['type']) => seen.filter((e) => e.type === type).length
    expect(count('frame')).toBe(stats.frames.delivered)
    expect(count('recovered')).toBe(stats.backfills.recovered)
    expect(stats.backfills.recovered).toBeGreaterThan(0)
    // Frames held behind the drop's backfill were released (each by the first stream that let it go).
    const held = new Set(seen.flatMap((e) => (e.type === 'held' ? [e.notification] : [])))
    for (const n of held) expect(seen.some((e) => e.type === 'released' && e.notification === n)).toBe(true)
    const starts = seen.filter((e) => e.type === 'backfill' && e.phase === 'start')
    const ends = seen.filter((e): e is Extract<DiagnosticEvent, { phase: 'end'; type: 'backfill' }> => e.type === 'backfill' && e.phase === 'end')
    expect(starts.length).toBe(stats.backfills.runs)
    expect(ends.length).toBe(starts.length)
    expect(ends.filter((e) => e.whole).length).toBeGreaterThanOrEqual(2)
    expect(count('gap')).toBeGreaterThanOrEqual(2)
    const sockets = seen.filter((e): e is Extract<DiagnosticEvent, { type: 'socket' }> => e.type === 'socket')
    expect(sockets.filter((e) => e.event.status === 'connecting').length).toBeGreaterThanOrEqual(2)
    expect(sockets.filter((e) => e.event.status === 'open').length).toBeGreaterThanOrEqual(2)
    await expect.poll(() => count('heartbeat') > 0).toBe(true)
    stop()
    const total = seen.length
    await sim.instantOpen(accounts[0])
    await plain.until((v) => v.length >= first.frames.length + after.frames.length + 3)
    expect(seen.length).toBe(total)
  })
})
