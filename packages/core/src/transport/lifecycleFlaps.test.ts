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
