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

it('a poll still waiting in the gate behind a Retry-After when the socket comes back holds none of the new socket\'s live frames past search.timeoutMs', async () => {
  // Two streams polling history while their socket is down, their polls spaced by the gate; the second
  // poll is answered 429, Retry-After: 15. The first stream's next poll, a few seconds later, may wait
  // for the gate search.timeoutMs and a poll interval (15 s): it waits for the Retry-After to pass.
  const pair = accounts.slice(0, 2)
  const polls: number[] = []
  const fetch: typeof globalThis.fetch = async () => {
    polls.push(Date.now())
    if (polls.length === 4) return new Response('{"error":"slow down"}', { status: 429, headers: { 'retry-after': '15' } })
    return new Response(JSON.stringify({ count: 0, position_state: [] }), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const client = createNotificationsClient({ config, WebSocket: FakeWebSocket, random: () => 1, heartbeat: false, lingerMs: 0, reconnect: { baseDelayMs: 100, maxDelayMs: 100 }, search: { fetch, retries: 0 } })
  const events = pair.map((account) => {
    const seen: NotificationEvent[] = []
    client.events({ account }, { resume: {} }).subscribe((event) => seen.push(event))
    return seen
  })
  await vi.advanceTimersByTimeAsync(0)
  FakeWebSocket.last().open()
  await vi.advanceTimersByTimeAsync(100)
  expect(polls).toHaveLength(2) // the first open's backfills
  // The socket stays down (no new one opens) until both streams have polled, the second answered 429.
  FakeWebSocket.last().drop(1006)
  const deadline = Date.now() + 60_000
  while (polls.length < 4) {
    if (Date.now() > deadline) throw new Error(`${polls.length - 2} polls in a minute of the socket down`)
    await vi.advanceTimersByTimeAsync(100)
  }
  // The first stream's next poll is asked meanwhile, and waits in the gate.
  await vi.advanceTimersByTimeAsync(4_000)
  expect(polls).toHaveLength(4)
  const reopenedAt = Date.now()
  FakeWebSocket.last().open()
  for (const [i, account] of pair.entries()) {
    FakeWebSocket.last().message(JSON.stringify({ id: `live-${i}`, quote_id: 100 + i, modify_time: Math.floor(reopenedAt / 1000), counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' }))
  }
  // search.timeoutMs (10 s) after the reopen, both streams have delivered their live frame.
  await vi.advanceTimersByTimeAsync(10_000)
  const delivered = events.map((seen) => seen.some((e) => e.type === 'notification' && e.notification.id?.startsWith('live-')))
  expect(delivered, `reopened ${reopenedAt - T * 1000} ms in; history asked at ${polls.map((t) => t - T * 1000).join(', ')} ms`).toEqual([true, true])
  client.close()
})
