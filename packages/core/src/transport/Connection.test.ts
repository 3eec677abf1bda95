import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeWebSocket, PingingFakeWebSocket } from '../../test/FakeWebSocket.js'
import { record } from '@solver-notifications/test-support'
import { fakeClient, statusesOf, } from '../../test/fakeClient.js'
import type { NotificationsClientOptions } from '../stream/clientOptions.js'
import type { NotificationEvent, } from '../stream/NotificationEvent.js'
import { backoffDelay } from './backoffDelay.js'

const account = '0xAbC0000000000000000000000000000000000001'
const client = (options: Partial<NotificationsClientOptions> = {}) => fakeClient({ lingerMs: 100, ...options })
const statuses = (values: unknown[]) => statusesOf(values as NotificationEvent[])

beforeEach(() => {
  vi.useFakeTimers()
  FakeWebSocket.reset()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('backoffDelay', () => {
  it('doubles from the base, caps at the max, and jitters into [0.5, 1]×', () => {
    const o = { baseDelayMs: 500, maxDelayMs: 10_000 }
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, o, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000])
    expect(backoffDelay(0, o, () => 0)).toBe(250)
    expect(backoffDelay(3, o, () => 0.5)).toBe(3000)
    expect(backoffDelay(1000, o, () => 1)).toBe(10_000)
  })
})

describe('reconnect', () => {
  it('retries with growing delays, dials again when the timer fires, and counts reconnects', () => {
    const c = client()
    const events = record(c.events({ account }))
    for (let i = 1; i <= 3; i++) {
      FakeWebSocket.last().drop(1006)
      const last = statuses(events.values).at(-1)!
      expect(last).toMatchObject({ status: 'reconnecting', attempt: i, retryInMs: 500 * 2 ** (i - 1), closeCode: 1006 })
      vi.advanceTimersByTime(last.retryInMs! - 1)
      expect(FakeWebSocket.instances).toHaveLength(i)
      vi.advanceTimersByTime(1)
      expect(FakeWebSocket.instances).toHaveLength(i + 1)
      expect(statuses(events.values).at(-1)).toMatchObject({ status: 'connecting', attempt: i })
    }
    expect(c.stats().reconnects).toBe(3)
    c.close()
  })

  it('resets the attempt counter only after the socket stayed open resetAfterMs', () => {
    const c = client({ reconnect: { resetAfterMs: 5000 } })
    const events = record(c.events({ account }))
    FakeWebSocket.last().open()
    FakeWebSocket.last().drop()
    vi.advanceTimersByTime(500)
    FakeWebSocket.last().open()
    vi.advanceTimersByTime(4999) // accepted, then dropped before resetAfterMs: no reset
    FakeWebSocket.last().drop()
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'reconnecting', attempt: 2, retryInMs: 1000 })
    vi.advanceTimersByTime(1000)
    FakeWebSocket.last().open()
    vi.advanceTimersByTime(5000)
    FakeWebSocket.last().drop()
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'reconnecting', attempt: 1, retryInMs: 500 })
    c.close()
  })

  it('gives up after maxAttempts: status closed, stream completes, nothing left', () => {
    const c = client({ reconnect: { maxAttempts: 2 } })
    const events = record(c.events({ account }))
    FakeWebSocket.last().drop()
    vi.runOnlyPendingTimers()
    FakeWebSocket.last().drop()
    vi.runOnlyPendingTimers()
    FakeWebSocket.last().drop(1011, 'bye')
    expect(statuses(events.values).map((s) => s.status)).toEqual(['connecting', 'reconnecting', 'connecting', 'reconnecting', 'connecting', 'closed'])
    expect(statuses(events.values).at(-1)).toMatchObject({ closeCode: 1011, closeReason: 'bye', attempt: 3 })
    expect(events.completed).toBe(true)
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  })

  it('abandons a dial that does not open within connectTimeoutMs and retries', () => {
    const c = client({ connectTimeoutMs: 1000 })
    const events = record(c.events({ account }))
    const first = FakeWebSocket.last()
    vi.advanceTimersByTime(1000)
    expect(first.closed).toBeDefined()
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'reconnecting', closeReason: 'connect timeout after 1000 ms' })
    first.open() // too late: ignored
    expect(statuses(events.values).at(-1)!.status).toBe('reconnecting')
    c.close()
  })

  it('reports transport errors as error events and keeps the stream', () => {
    const c = client()
    const events = record(c.events({ account }))
    FakeWebSocket.last().onerror?.({ message: 'ECONNREFUSED' })
    const error = events.values.find((e) => e.type === 'error')
    expect(error?.type === 'error' && [error.error.code, error.error.message]).toEqual([
      'SOCKET',
      'WebSocket error on wss://hub.example/ws: ECONNREFUSED; the stream reconnects by itself',
    ])
    expect(events.completed).toBe(false)
    c.close()
  })

  it('dials at once on the browser online event while waiting to retry', () => {
    const target = new EventTarget()
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target))
    vi.stubGlobal('removeEventListener', target.removeEventListener.bind(target))
    try {
      const c = client()
      record(c.events({ account }))
      FakeWebSocket.last().drop()
      expect(FakeWebSocket.instances).toHaveLength(1)
      target.dispatchEvent(new Event('online'))
      expect(FakeWebSocket.instances).toHaveLength(2)
      c.close()
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('dials at once when the page becomes visible while waiting to retry', () => {
    const doc = Object.assign(new EventTarget(), { visibilityState: 'hidden' })
    const target = new EventTarget()
    vi.stubGlobal('addEventListener', target.addEventListener.bind(target))
    vi.stubGlobal('removeEventListener', target.removeEventListener.bind(target))
    vi.stubGlobal('document', doc)
    try {
      const c = client()
      record(c.events({ account }))
      FakeWebSocket.last().drop()
      doc.dispatchEvent(new Event('visibilitychange'))
      expect(FakeWebSocket.instances).toHaveLength(1)
      doc.visibilityState = 'visible'
      doc.dispatchEvent(new Event('visibilitychange'))
      expect(FakeWebSocket.instances).toHaveLength(2)
      c.close()
    } finally {
      vi.unstubAllGlobals()
    }
  })
})

describe('heartbeat', () => {
  it('pings every interval and replaces a socket that answers no ping within the timeout', () => {
    const c = client({ WebSocket: PingingFakeWebSocket, heartbeat: { intervalMs: 1000, timeoutMs: 500 } })
    const events = record(c.events({ account }))
    const ws = FakeWebSocket.last() as PingingFakeWebSocket
    ws.open()
    vi.advanceTimersByTime(1000)
    expect(ws.pings).toBe(1)
    ws.pong()
    vi.advanceTimersByTime(1000)
    expect(ws.pings).toBe(2)
    vi.advanceTimersByTime(500)
    expect(ws.terminated || ws.closed !== undefined).toBe(true)
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'reconnecting', closeReason: 'heartbeat timeout: no pong within 500 ms' })
    c.close()
  })
})

describe('subscribe frames and release', () => {
  it('coalesces a loop of 10,000 subscriptions into one frame', async () => {
    const c = client()
    const subs = []
    for (let i = 0; i < 10_000; i++) subs.push(c.events({ account: `0x${i.toString(16).padStart(40, '0')}` }).subscribe())
    FakeWebSocket.last().open()
    expect(FakeWebSocket.last().sent).toHaveLength(1)
    expect(JSON.parse(FakeWebSocket.last().sent[0]!).address).toHaveLength(10_000)
    for (let i = 0; i < 10; i++) subs.push(c.events({ account: `0x${'f'.repeat(39)}${i}` }).subscribe())
    await Promise.resolve()
    expect(FakeWebSocket.last().sent).toHaveLength(2)
    for (const s of subs) s.unsubscribe()
    vi.advanceTimersByTime(100)
    expect(FakeWebSocket.last().closed).toBeDefined()
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  })

  it.each(['status', 'error', 'notification'] as const)('release from inside a %s callback cancels everything', (kind) => {
    const c = client({ lingerMs: 0 })
    const sub = c.events({ account }).subscribe((event) => {
      if (event.type === kind && (kind !== 'status' || (event.type === 'status' && event.status === 'reconnecting'))) sub.unsubscribe()
    })
    const ws = FakeWebSocket.last()
    ws.open()
    if (kind === 'status') ws.drop()
    if (kind === 'error') ws.onerror?.({})
    if (kind === 'notification') ws.message(JSON.stringify({ quote_id: 1, counterparty_address: account }))
    expect(sub.closed).toBe(true)
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
    expect(FakeWebSocket.instances).toHaveLength(1)
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(1)
  })

  it('release during a dial and during a backoff wait leaves no socket or timer', () => {
    const c = client({ lingerMs: 0 })
    const during = c.events({ account }).subscribe()
    during.unsubscribe()
    expect(FakeWebSocket.last().closed).toBeDefined()
    const backoff = c.events({ account }).subscribe()
    FakeWebSocket.last().drop()
    expect(c.stats().timers).toBe(1)
    backoff.unsubscribe()
    expect(c.stats()).toMatchObject({ sockets: 0, timers: 0 })
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(2)
  })

  it('frames from a replaced socket are never delivered', () => {
    const c = client()
    const notes = record(c.notifications({ account }))
    const old = FakeWebSocket.last()
    old.open()
    const onmessage = old.onmessage
    old.drop()
    vi.runOnlyPendingTimers()
    FakeWebSocket.last().open()
    onmessage?.({ data: JSON.stringify({ quote_id: 1, counterparty_address: account }) })
    expect(notes.values).toEqual([])
    c.close()
  })

  it('rejects nonsense options with INVALID_CONFIG naming them', () => {
    expect(() => client({ lingerMs: -1, reconnect: { baseDelayMs: Number.NaN } })).toThrowError(
      expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringMatching(/reconnect.baseDelayMs[\s\S]*lingerMs/) }),
    )
  })
})
