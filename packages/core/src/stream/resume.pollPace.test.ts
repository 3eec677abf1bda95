import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest'
import { FakeWebSocket } from '../../test/FakeWebSocket.js'
import { seededRandom } from '../../test/random.js'
import { createNotificationsClient } from '../client/createNotificationsClient.js'
import { createConfig } from '../config/createConfig.js'

// Polls are paced by the streams about to poll, at their real pace. 20 streams whose socket is refused
// with `poll: { afterMs: 1000, intervalMs: 4000 }` used to see a rate of one stream at the first poll of
// the burst (streams counted only once polling): the second stream's first poll came at 5.4 s, the last
// at 9.5 s. And a stream with a quote mid-transition registered `intervalMs`, not 1,500 ms, so the gate
// held its polls 6.6 s apart.

/** A socket endpoint that refuses every dial (closes before it opens). */
class RefusedWebSocket extends FakeWebSocket {
  constructor(url: string) {
    super(url)
    queueMicrotask(() => this.drop(1006))
  }
}

const config = createConfig({
  defaultChainId: 1,
  chains: { 1: { defaultSolver: 'hub', solvers: { hub: { url: 'https://hub.example', notifications: { protocol: 'rasa', url: 'wss://hub.example/ws' } } } } },
})
const T = 1_763_700_000
const accountOf = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}` as const

beforeAll(() => import('./resume/HistoryGate.js'))
beforeEach(() => {
  FakeWebSocket.reset()
  vi.useFakeTimers({ now: T * 1000 })
})
afterEach(() => vi.useRealTimers())

/** History that records each poll's start per account and answers with `rows(account)`. */
function history(rows: (account: string) => unknown[] = () => []) {
  const polls = new Map<string, number[]>()
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const account = (JSON.parse(String(init?.body)) as { address: string[] | string }).address
    const key = String(Array.isArray(account) ? account[0] : account).toLowerCase()
    const at = polls.get(key) ?? []
    at.push(Date.now() - T * 1000)
    polls.set(key, at)
    return new Response(JSON.stringify({ count: rows(key).length, position_state: rows(key) }), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { polls, fetch }
}

it('20 streams going down together: every first poll within afterMs + 1.1 intervals (the spacing of 20 streams), the second within half an interval and one spacing', async () => {
  const { polls, fetch } = history()
  const client = createNotificationsClient({ config, WebSocket: RefusedWebSocket, random: seededRandom(7), heartbeat: false, lingerMs: 0, reconnect: { baseDelayMs: 60_000, maxDelayMs: 60_000 }, search: { fetch } })
  for (let i = 0; i < 20; i++) client.events({ account: accountOf(i) }, { resume: { poll: { afterMs: 1_000, intervalMs: 4_000 } } }).subscribe()
  await vi.advanceTimersByTimeAsync(12_000)
  const firsts = [...polls.values()].map((at) => at.find((t) => t >= 1_000)!).sort((a, b) => a - b)
  expect(firsts).toHaveLength(20)
  // 20 streams every 4 s: one poll every 220 ms at most; the burst's first polls fit in 1.1 intervals.
  expect(firsts[1]!).toBeLessThanOrEqual(1_000 + 2_000 + 220)
  expect(firsts[19]!).toBeLessThanOrEqual(1_000 + 4_400 + 250)
  for (let i = 1; i < firsts.length; i++) expect(firsts[i]! - firsts[i - 1]!).toBeGreaterThanOrEqual(219)
  client.close()
})

it('a stream whose newest notification is seen polls about every 1,500 ms, not every intervalMs', async () => {
  const A = accountOf(0)
  const { polls, fetch } = history(() => [{ id: 'mid', quote_id: 7, temp_quote_id: -7, modify_time: T + 1, create_time: T + 1, counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'seen' }])
  const client = createNotificationsClient({ config, WebSocket: RefusedWebSocket, random: seededRandom(11), heartbeat: false, lingerMs: 0, reconnect: { baseDelayMs: 60_000, maxDelayMs: 60_000 }, search: { fetch } })
  client.events({ account: A }, { resume: { poll: { afterMs: 1_000, intervalMs: 4_000 } } }).subscribe()
  await vi.advanceTimersByTimeAsync(15_000)
  const at = (polls.get(A.toLowerCase()) ?? []).filter((t) => t >= 1_000)
  expect(at.length).toBeGreaterThanOrEqual(7)
  // After the first poll found the quote mid-transition, polls come 1,200-1,800 ms apart (plus the gate's 10% headroom).
  for (let i = 2; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeLessThanOrEqual(1_800 + 150)
  client.close()
})
