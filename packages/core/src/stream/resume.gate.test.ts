import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest'
import { FakeWebSocket } from '../../test/FakeWebSocket.js'
import { createNotificationsClient } from '../client/createNotificationsClient.js'
import { createConfig } from '../config/createConfig.js'
import type { NotificationEvent } from './NotificationEvent.js'

// One stream's Retry-After must not hold every other stream's live frames: 20 resume streams on one
// rasa hub, the socket drops, and at the reopen the first history request is answered 429 with
// Retry-After: 20. The streams whose backfills were still queued in the history gate used to hold their
// live frames 18-20 s; waiting for the gate now counts against the attempt (search.timeoutMs).

const config = createConfig({
  defaultChainId: 1,
  chains: { 1: { defaultSolver: 'hub', solvers: { hub: { url: 'https://hub.example', notifications: { protocol: 'rasa', url: 'wss://hub.example/ws' } } } } },
})
const accounts = Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as const)
const T = 1_763_700_000

// The gate is a lazy chunk: loaded before the clock is faked (a module load is I/O, which fake time does not wait for).
beforeAll(() => import('./resume/HistoryGate.js'))
beforeEach(() => {
  FakeWebSocket.reset()
  vi.useFakeTimers({ now: T * 1000 })
})
afterEach(() => vi.useRealTimers())

it('a 429 with Retry-After: 20 at the reopen holds no other stream\'s live frames past search.timeoutMs; every gap is still backfilled after it', async () => {
  const requests: number[] = []
  let throttleNext = false
  const fetch: typeof globalThis.fetch = async () => {
    requests.push(Date.now())
    if (throttleNext) {
      throttleNext = false
      return new Response('{"error":"slow down"}', { status: 429, headers: { 'retry-after': '20' } })
    }
    // Healthy answers take a little while: the first six requests fill the gate's slots.
    await new Promise((resolve) => setTimeout(resolve, 50))
    return new Response(JSON.stringify({ count: 0, position_state: [] }), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const client = createNotificationsClient({ config, WebSocket: FakeWebSocket, random: () => 1, heartbeat: false, lingerMs: 0, reconnect: { baseDelayMs: 100, maxDelayMs: 100 }, search: { fetch, timeoutMs: 1_000, retries: 0 } })
  const events = accounts.map((account) => {
    const seen: NotificationEvent[] = []
    client.events({ account }, { resume: { poll: false } }).subscribe((e) => seen.push(e))
    return seen
  })
  await vi.advanceTimersByTimeAsync(0)
  FakeWebSocket.last().open()
  await vi.advanceTimersByTimeAsync(500) // the first open's backfills (nothing), six at a time
  const before = requests.length
  expect(before).toBe(20)
  FakeWebSocket.last().drop(1006)
  await vi.advanceTimersByTimeAsync(100)
  const reopenedAt = Date.now()
  throttleNext = true
  FakeWebSocket.last().open()
  // One live frame per account right at the reopen: every stream holds it behind its backfill.
  for (const [i, account] of accounts.entries()) {
    FakeWebSocket.last().message(JSON.stringify({ id: `live-${i}`, quote_id: 100 + i, modify_time: T + 5, counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' }))
  }
  await vi.advanceTimersByTimeAsync(1_000 + 10)
  const deliveredAt = events.map((seen) => seen.some((e) => e.type === 'notification' && e.notification.id?.startsWith('live-')))
  expect(deliveredAt.filter(Boolean)).toHaveLength(20)
  expect(Date.now() - reopenedAt).toBeLessThan(20_000)
  // The throttled stream got the 429; the streams still queued failed their attempt at once, naming the Retry-After.
  const codes = events.flatMap((seen) => seen.flatMap((e) => (e.type === 'error' ? [e.error.code] : [])))
  expect(codes.filter((c) => c === 'HTTP_STATUS')).toHaveLength(1)
  expect(codes.filter((c) => c === 'TIMEOUT').length).toBeGreaterThanOrEqual(14)
  expect(codes.length).toBe(1 + codes.filter((c) => c === 'TIMEOUT').length)
  // Nobody asked history again before the Retry-After ran out.
  const reopenRequests = requests.slice(before)
  expect(reopenRequests.filter((t) => t < reopenedAt + 20_000).length).toBeLessThanOrEqual(6)
  // After it, every failed attempt is retried and finishes: no gap is left open.
  await vi.advanceTimersByTimeAsync(21_000)
  for (const seen of events) {
    const backfills = seen.flatMap((e) => (e.type === 'status' && e.backfill ? [e.backfill.state] : []))
    expect(backfills.at(-1)).toBe('finished')
  }
  client.close()
})
