import { FakeWebSocket } from '../test/FakeWebSocket.js'
import { createConfig } from '../src/config/createConfig.js'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { compare, report } from './measure.js'

const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'hub', solvers: { hub: { notifications: { protocol: 'rasa', url: 'wss://hub.example/ws' } } } } } })
const accountOf = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`

function hub(accounts: number) {
  FakeWebSocket.reset()
  const client = createNotificationsClient({ config, WebSocket: FakeWebSocket, heartbeat: false, lifecycle: false })
  let delivered = 0
  const subs = Array.from({ length: accounts }, (_, i) => client.notifications({ account: accountOf(i) }).subscribe(() => delivered++))
  const ws = FakeWebSocket.last()
  ws.open()
  return { client, subs, ws, delivered: () => delivered }
}

/** The same spread through a hand-written Map-of-Sets filter: what memory alone costs at 10,000 accounts. */
function handWrittenRatio(large: string[], small: string[]): number {
  const route = (accounts: number) => {
    const handlers = new Map<string, Set<(frame: unknown) => void>>()
    let delivered = 0
    for (let i = 0; i < accounts; i++) handlers.set(accountOf(i), new Set([() => void delivered++]))
    return (text: string) => {
      const frame = JSON.parse(text) as { counterparty_address?: string }
      const set = handlers.get(String(frame.counterparty_address).toLowerCase())
      if (set) for (const handler of set) handler(frame)
    }
  }
  const big = route(10_000)
  const tiny = route(10)
  const run = (frames: string[], route: (text: string) => void) => () => {
    for (const frame of frames) route(frame)
    return frames.length
  }
  return compare('B3 hand-written', run(large, big), run(small, tiny), 9).ratio
}

/**
 * B3: per-frame routing cost on one rasa hub (in-process socket, so only the client is measured):
 * 10,000 accounts with frames spread over every one of them, vs 10 accounts with the same frames
 * spread over those 10. Routing is one map lookup; what the ratio loses beyond that is the memory of
 * 10,000 subscriber chains (cache misses), which the hand-written client's own ratio, printed
 * beside it, shows too.
 */
export function runB3(): boolean {
  const count = 50_000
  const framesFor = (accounts: number) =>
    Array.from({ length: count }, (_, i) => JSON.stringify({ quote_id: i + 1, counterparty_address: accountOf(i % accounts), action_status: 'success', modify_time: i }))
  const spreadLarge = framesFor(10_000)
  const spreadSmall = framesFor(10)
  const small = hub(10)
  const large = hub(10_000)
  const run = (h: ReturnType<typeof hub>, frames: string[]) => () => {
    for (const f of frames) h.ws.message(f)
    return frames.length
  }
  const result = compare('B3', run(large, spreadLarge), run(small, spreadSmall), 9)
  const reached = new Set(spreadLarge.map((f) => JSON.parse(f).counterparty_address)).size
  const pass = result.ratio >= 0.9 && reached === 10_000
  report('B3', `rasa routing, frames spread over all ${reached.toLocaleString('en-US')} accounts of a hub vs over 10 accounts`, result, 'ratio ≥ 0.90', pass)
  console.log(`B3 context: a hand-written Map-of-Sets filter over the same frames loses as much to memory: ratio ${handWrittenRatio(spreadLarge, spreadSmall).toFixed(2)}×`)
  small.client.close()
  large.client.close()
  return pass
}

/** B4: heap per idle subscription with 10,000 accounts on one hub. */
export function runB4(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) {
    console.log('B4 skipped: run with node --expose-gc')
    return true
  }
  FakeWebSocket.reset()
  const client = createNotificationsClient({ config, WebSocket: FakeWebSocket, heartbeat: false, lifecycle: false })
  const observables = Array.from({ length: 10_000 }, (_, i) => client.notifications({ account: accountOf(i) }))
  gc()
  const before = process.memoryUsage().heapUsed
  const subs = observables.map((o) => o.subscribe(() => {}))
  FakeWebSocket.last().open()
  gc()
  const after = process.memoryUsage().heapUsed
  const perSubscription = (after - before) / subs.length
  const pass = perSubscription <= 2048
  console.log(`B4 heap per idle subscription at 10,000 accounts: ${Math.round(perSubscription)} bytes (target ≤ 2,048) ${pass ? 'PASS' : 'MISS'}`)
  for (const s of subs) s.unsubscribe()
  client.close()
  return pass
}
