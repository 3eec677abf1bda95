import { afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest'
import { FakeWebSocket } from '../../test/FakeWebSocket.js'
import { createNotificationsClient } from '../client/createNotificationsClient.js'
import { createConfig } from '../config/createConfig.js'
import type { Lifecycle, LifecycleEvent } from './Lifecycle.js'

// A network that flaps: 165 `online` in 4 s used to replace the sockets (which cannot ping) every
// time, and each replacement made every resume stream backfill: 557 history requests for 10 streams.
// At most one replacement per socket per second, so at most one backfill per stream per second.

const config = createConfig({
  defaultChainId: 1,
  chains: { 1: { defaultSolver: 'hub', solvers: { hub: { url: 'https://hub.example', notifications: { protocol: 'rasa', url: 'wss://hub.example/ws' } } } } },
})
const T = 1_763_700_000

/** A fake socket that knows when it was dialed. */
class TimedWebSocket extends FakeWebSocket {
  readonly dialedAt = Date.now()
}

beforeAll(() => import('../stream/resume/HistoryGate.js'))
beforeEach(() => {
  FakeWebSocket.reset()
  vi.useFakeTimers({ now: T * 1000 })
})
afterEach(() => vi.useRealTimers())

it('165 online events in 4 s: at most one socket replacement and one backfill per stream per second, and the last socket is dialed after the last event', async () => {
  let emit: (event: LifecycleEvent) => void = () => {}
  const lifecycle: Lifecycle = {
    subscribe(listener) {
      emit = listener
      return () => {}
    },
  }
  const requests: number[] = []
  const fetch: typeof globalThis.fetch = async () => {
    requests.push(Date.now())
    return new Response(JSON.stringify({ count: 0, position_state: [] }), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const client = createNotificationsClient({ config, lifecycle, WebSocket: TimedWebSocket, random: () => 1, heartbeat: false, lingerMs: 0, search: { fetch } })
  for (let i = 0; i < 10; i++) client.events({ account: `0x${(i + 1).toString(16).padStart(40, '0')}` }, { resume: { poll: false } }).subscribe()
  // Every socket the client dials opens at once (the new network answers).
  const openAll = () => {
    for (const ws of FakeWebSocket.instances) if (ws.readyState === 0 && ws.closed === undefined) ws.open()
  }
  await vi.advanceTimersByTimeAsync(0)
  openAll()
  await vi.advanceTimersByTimeAsync(1_500)
  const socketsBefore = FakeWebSocket.instances.length
  const requestsBefore = requests.length
  expect(socketsBefore).toBe(1)
  expect(requestsBefore).toBe(10)
  const flapStart = Date.now()
  for (let i = 0; i < 165; i++) {
    emit('online')
    await vi.advanceTimersByTimeAsync(0)
    openAll()
    await vi.advanceTimersByTimeAsync(24)
  }
  const lastEvent = Date.now()
  await vi.advanceTimersByTimeAsync(2_000)
  openAll()
  await vi.advanceTimersByTimeAsync(1_000)
  const seconds = Math.ceil((Date.now() - flapStart) / 1000)
  const replacements = FakeWebSocket.instances.length - socketsBefore
  expect(replacements).toBeGreaterThanOrEqual(1)
  expect(replacements).toBeLessThanOrEqual(seconds)
  expect(requests.length - requestsBefore).toBeLessThanOrEqual(10 * seconds)
  // The socket in use was dialed after the last event: nothing is left on the old network.
  expect(FakeWebSocket.instances.at(-1)!.readyState).toBe(1)
  expect((FakeWebSocket.instances.at(-1) as TimedWebSocket).dialedAt).toBeGreaterThanOrEqual(lastEvent)
  client.close()
  expect(client.stats().timers).toBe(0)
})

it('a socket suspected dead within a second of its dial is let go at once (the re-dial waits, frames on it do not count): a resume stream backfills from before the wake', async () => {
  // Found by the resume chaos test (seed 404): a wake put off to keep replacements a second apart left the
  // suspect socket delivering; frames it carried after the lost ones moved the watermark past them, and the
  // late replacement's backfill started after them: 3 notifications lost.
  let emit: (event: LifecycleEvent) => void = () => {}
  const lifecycle: Lifecycle = {
    subscribe(listener) {
      emit = listener
      return () => {}
    },
  }
  const sinces: number[] = []
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    // A backfill asks for the states modified since its gap's start.
    sinces.push(JSON.parse(String(init?.body)).modify_time_gte)
    return new Response(JSON.stringify({ count: 0, position_state: [] }), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const client = createNotificationsClient({ config, lifecycle, WebSocket: TimedWebSocket, random: () => 1, heartbeat: false, lingerMs: 0, search: { fetch } })
  const account = `0x${'1'.padStart(40, '0')}` as const
  const delivered: number[] = []
  client.notifications({ account }, { resume: { poll: false } }).subscribe((n) => delivered.push(n.quoteId ?? -1))
  await vi.advanceTimersByTimeAsync(0)
  const first = FakeWebSocket.last()
  first.open()
  await vi.advanceTimersByTimeAsync(300)
  const frame = (quote: number, at: number) => JSON.stringify({ id: `q${quote}`, quote_id: quote, temp_quote_id: -quote, modify_time: at, counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' })
  first.message(frame(1, T + 1))
  await vi.advanceTimersByTimeAsync(0)
  expect(delivered).toEqual([1])
  // Quotes 2 and 3 are lost while the machine sleeps; it wakes 300 ms after the socket was dialed.
  emit('wake')
  expect(first.closed, 'the suspect socket is let go at once').toBeDefined()
  // A frame the suspect socket still carries is not delivered (its link may have lost what came before it).
  first.message(frame(4, T + 4))
  await vi.advanceTimersByTimeAsync(0)
  expect(delivered).toEqual([1])
  // The re-dial keeps replacements a second apart.
  await vi.advanceTimersByTimeAsync(600)
  expect(FakeWebSocket.instances).toHaveLength(1)
  await vi.advanceTimersByTimeAsync(200)
  expect(FakeWebSocket.instances).toHaveLength(2)
  expect((FakeWebSocket.last() as TimedWebSocket).dialedAt - (first as TimedWebSocket).dialedAt).toBeGreaterThanOrEqual(1_000)
  FakeWebSocket.last().open()
  await vi.advanceTimersByTimeAsync(100)
  // The backfill reads from before quote 2 (the watermark of quote 1), so quotes 2 to 4 come from history.
  expect(sinces.at(-1)).toBeLessThanOrEqual(T + 1)
  client.close()
})
