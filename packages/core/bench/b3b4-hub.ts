import { FakeWebSocket } from '../test/FakeWebSocket.js'
import { createConfig } from '../src/config/createConfig.js'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { compare, report } from './measure.js'

const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'hub', solvers: { hub: { notifications: { protocol: 'rasa', url: 'wss://hub.example/ws' } } } } } })
const accountOf = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as `0x${string}`

function hub(accounts: number) {
  FakeWebSocket.reset()
  const client = createNotificationsClient({ config, WebSocket: FakeWebSocket, heartbeat: false })
  let delivered = 0
  const subs = Array.from({ length: accounts }, (_, i) => client.notifications({ account: accountOf(i) }).subscribe(() => delivered++))
  const ws = FakeWebSocket.last()
  ws.open()
  return { client, subs, ws, delivered: () => delivered }
}

/** B3: per-frame routing cost with 10 vs 10,000 accounts on one rasa hub (in-process socket). */
export function runB3(): boolean {
  const frames = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ quote_id: i + 1, counterparty_address: accountOf(i % 10), action_status: 'success', modify_time: i }))
  const small = hub(10)
  const large = hub(10_000)
  const run = (h: ReturnType<typeof hub>) => () => {
    for (const f of frames) h.ws.message(f)
    return frames.length
  }
  const result = compare('B3', run(large), run(small), 9)
  const pass = result.ratio >= 0.9
  report('B3', 'rasa routing with 10,000 accounts vs 10 accounts on one hub', result, 'ratio ≥ 0.90', pass)
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
  const client = createNotificationsClient({ config, WebSocket: FakeWebSocket, heartbeat: false })
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
