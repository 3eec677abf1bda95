import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { normalizeNotification } from '../protocol/normalizeNotification.js'
import type { Notification } from '../protocol/types.js'
import { Timers } from '../transport/Timers.js'
import { DedupeWindow } from './DedupeWindow.js'
import { GapFiller } from './GapFiller.js'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'

const account = '0xAbC0000000000000000000000000000000000001'
const note = (quote: number, time: number, id: string | null = `id-${quote}-${time}`, source: 'live' | 'backfill' = 'live'): Notification =>
  normalizeNotification({ id, quote_id: quote, modify_time: time, action_status: 'success', last_seen_action: 'InstantRFQ' }, { protocol: 'rasa', chainId: 1, solverId: 's', account, source })
const status = (s: 'open' | 'reconnecting', attempt = 0): StatusEvent => ({ type: 'status', status: s, attempt })

function setup(fetch: (since: number, signal: AbortSignal) => Promise<Notification[]>) {
  const events: NotificationEvent[] = []
  const timers = new Timers()
  const filler = new GapFiller({ notification: (notification) => events.push({ type: 'notification', notification }), event: (e) => events.push(e), complete: () => events.push({ type: 'status', status: 'closed', attempt: 0 }) }, { fetch, timers, backoff: { baseDelayMs: 100, maxDelayMs: 1000 }, random: () => 1, dedupeWindow: 64 })
  const delivered = () => events.flatMap((e) => (e.type === 'notification' ? [`${e.notification.quoteId}@${e.notification.modifyTime}:${e.notification.source}`] : []))
  return { events, timers, filler, delivered }
}

beforeEach(() => vi.useFakeTimers({ now: 1_763_700_000_000 }))
afterEach(() => vi.useRealTimers())

describe('GapFiller', () => {
  it('after a reconnect, backfills from the watermark, holds live frames meanwhile, and delivers the union once, in order', async () => {
    let resolve!: (rows: Notification[]) => void
    const since: number[] = []
    const { filler, delivered, events } = setup((s) => {
      since.push(s)
      return new Promise((r) => (resolve = r))
    })
    filler.event(status('open'))
    filler.notification(note(1, 1_763_700_010))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    expect(since).toEqual([1_763_700_010])
    filler.notification(note(2, 1_763_700_030)) // live, held
    expect(delivered()).toEqual(['1@1763700010:live'])
    resolve([note(1, 1_763_700_010, 'id-1-1763700010', 'backfill'), note(2, 1_763_700_020, undefined, 'backfill'), note(2, 1_763_700_030, 'id-2-1763700030', 'backfill')])
    await vi.runAllTimersAsync()
    expect(delivered()).toEqual(['1@1763700010:live', '2@1763700020:backfill', '2@1763700030:backfill'])
    const backfill = events.flatMap((e) => (e.type === 'status' && e.backfill ? [e.backfill] : []))
    expect(backfill).toEqual([{ state: 'started' }, { state: 'finished', recovered: 2 }])
  })

  it('drops frames older than what their quote already delivered', async () => {
    const { filler, delivered } = setup(async () => [note(5, 1_763_700_050, 'x', 'backfill')])
    filler.event(status('open'))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    await vi.runAllTimersAsync()
    filler.notification(note(5, 1_763_700_040, 'late'))
    expect(delivered()).toEqual(['5@1763700050:backfill'])
  })

  it('a failed backfill is an error event, live frames flow, and it is retried with backoff', async () => {
    let calls = 0
    const { filler, delivered, events, timers } = setup(async () => {
      if (++calls === 1) throw new Error('search down')
      return [note(9, 1_763_700_090, 'b', 'backfill')]
    })
    filler.event(status('open'))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    filler.notification(note(8, 1_763_700_080, 'l'))
    await vi.advanceTimersByTimeAsync(0)
    expect(events.some((e) => e.type === 'error' && e.error.message.includes('search down'))).toBe(true)
    expect(delivered()).toEqual(['8@1763700080:live'])
    expect(timers.pending).toBe(1)
    await vi.advanceTimersByTimeAsync(100)
    expect(calls).toBe(2)
    expect(delivered()).toEqual(['8@1763700080:live', '9@1763700090:backfill'])
    expect(timers.pending).toBe(0)
  })

  it('a drop during a backfill keeps holding and backfills again from the first drop, so nothing is lost', async () => {
    const calls: { since: number; resolve: (rows: Notification[]) => void; signal: AbortSignal }[] = []
    const { filler, delivered } = setup((since, signal) => new Promise((resolve) => calls.push({ since, resolve, signal })))
    filler.event(status('open'))
    filler.notification(note(1, 1_763_700_010))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    filler.notification(note(2, 1_763_700_040)) // live, held
    filler.event(status('reconnecting', 1)) // second drop before the first backfill answered
    expect(calls[0]!.signal.aborted).toBe(true)
    expect(delivered()).toEqual(['1@1763700010:live']) // still held: releasing now would advance the watermark past the gap
    filler.event(status('open', 2))
    filler.notification(note(2, 1_763_700_050))
    expect(calls.map((c) => c.since)).toEqual([1_763_700_010, 1_763_700_010])
    calls[1]!.resolve([note(2, 1_763_700_020, 'a', 'backfill'), note(2, 1_763_700_030, 'b', 'backfill'), note(2, 1_763_700_040, 'id-2-1763700040', 'backfill')])
    await vi.runAllTimersAsync()
    expect(delivered()).toEqual(['1@1763700010:live', '2@1763700020:backfill', '2@1763700030:backfill', '2@1763700040:backfill', '2@1763700050:live'])
  })

  it('a retry after a failed backfill starts from the drop, not from live frames delivered meanwhile', async () => {
    const since: number[] = []
    const { filler, delivered } = setup(async (s) => {
      since.push(s)
      if (since.length === 1) throw new Error('search down')
      return [note(3, 1_763_700_020, 'r', 'backfill')]
    })
    filler.event(status('open'))
    filler.notification(note(1, 1_763_700_010))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    filler.notification(note(2, 1_763_700_040))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@1763700010:live', '2@1763700040:live']) // live flows after the failure
    await vi.advanceTimersByTimeAsync(100)
    expect(since).toEqual([1_763_700_010, 1_763_700_010])
    expect(delivered()).toEqual(['1@1763700010:live', '2@1763700040:live', '3@1763700020:backfill'])
  })

  it('a closed stream releases what it held', () => {
    const { filler, delivered } = setup(() => new Promise(() => {}))
    filler.event(status('open'))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    filler.notification(note(4, 1_763_700_040))
    expect(delivered()).toEqual([])
    filler.event({ type: 'status', status: 'closed', attempt: 1 })
    expect(delivered()).toEqual(['4@1763700040:live'])
  })

  it('release aborts the backfill and clears its timer; nothing more is delivered', async () => {
    let signal!: AbortSignal
    const { filler, delivered, timers } = setup((_, s) => {
      signal = s
      return new Promise(() => {})
    })
    filler.event(status('open'))
    filler.event(status('reconnecting', 1))
    filler.event(status('open', 1))
    filler.notification(note(1, 1_763_700_001))
    filler.dispose()
    expect(signal.aborted).toBe(true)
    expect(delivered()).toEqual([])
    expect(timers.pending).toBe(0)
  })
})

describe('DedupeWindow', () => {
  it('stays bounded over a long run', () => {
    const window = new DedupeWindow(100)
    for (let i = 0; i < 50_000; i++) {
      const n = note(i % 500, 1_763_700_000 + i)
      expect(window.rejects(n)).toBe(false)
      window.remember(n)
      expect(window.rejects(n)).toBe(true)
    }
    expect(window.entries).toBeLessThanOrEqual(300)
  })

  it('matches a stored row and its live frame by id or by quote + time + action', () => {
    const window = new DedupeWindow(10)
    window.remember(note(1, 100, 'abc'))
    expect(window.rejects(note(2, 200, 'abc'))).toBe(true)
    expect(window.rejects(note(1, 100, null))).toBe(true)
    expect(window.rejects(note(1, 101, null))).toBe(false)
  })
})
