import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { until } from '../test/cluster.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { type Relay, startRelay } from './startRelay.js'

const A = '0xabc0000000000000000000000000000000000001'
const KEY = accountKey(1, 'beta', A)
let nats: Awaited<ReturnType<typeof startNats>>
let sim: SolverSimulator
let relay: Relay | undefined
beforeEach(async () => {
  if (!natsAvailable) return
  ;[nats, sim] = await Promise.all([startNats(), startSolverSimulator({ protocol: 'rasa' })])
})
afterEach(async () => {
  if (!natsAvailable) return
  await relay?.close()
  relay = undefined
  await sim.close()
  await nats.close()
})

const configOf = (s: SolverSimulator) => ({ defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: s.httpUrl, notifications: { protocol: 'rasa' as const, url: s.wsUrl } } } } } })
const get = async (path: string) => {
  const res = await fetch(`http://${relay!.httpAddress}${path}`)
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() }
}

describe.skipIf(!natsAvailable)('operations: /healthz, /readyz, /metrics, drain', () => {
  it('serves health, readiness and Prometheus metrics of what it relayed', async () => {
    relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, partitions: 16, instanceId: 'ops', http: '127.0.0.1:0' })
    expect(relay.httpAddress).toMatch(/^127\.0\.0\.1:\d+$/)
    await addAccounts({ servers: nats.url }, [KEY])
    await until(() => relay!.owned().includes(KEY), 'the account to be owned')
    await sim.waitForSubscribers(A)
    await sim.instantOpen(A)
    await until(() => relay!.stats().published === 3, 'three publishes')

    expect(await get('/healthz')).toMatchObject({ status: 200, text: expect.stringContaining('"status":"ok"') })
    const ready = await get('/readyz')
    expect(ready.status).toBe(200)
    expect(JSON.parse(ready.text)).toMatchObject({ status: 'ready', instance: 'ops', checks: { nats: true, storage: true, joined: true, draining: false } })
    const metrics = await get('/metrics')
    expect(metrics.status).toBe(200)
    expect(metrics.type).toContain('text/plain')
    for (const line of [
      'solver_relay_notifications_total{chain="1",solver="beta",protocol="rasa"} 3',
      'solver_relay_accounts_owned 1',
      'solver_relay_sockets{state="open"} 1',
      'solver_relay_nats_connected 1',
      'solver_relay_publish_ack_seconds_count 3',
      'solver_relay_duplicates_total 0',
    ]) {
      expect(metrics.text).toContain(`${line}\n`)
    }
    expect(metrics.text).toMatch(/^process_resident_memory_bytes \d+/m)
    expect((await get('/nope')).status).toBe(404)
  })

  it('/readyz is 503 with the reason while NATS is away, 200 again after it is back', async () => {
    relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, partitions: 16, instanceId: 'ops', http: '127.0.0.1:0' })
    await until(async () => (await relay!.ready()).ready, 'ready')
    await nats.stop()
    await until(async () => (await get('/readyz')).status === 503, '/readyz 503')
    expect(JSON.parse((await get('/readyz')).text)).toMatchObject({ status: 'not ready', reason: expect.stringContaining('NATS is disconnected'), checks: { nats: false } })
    expect((await get('/metrics')).text).toContain('solver_relay_nats_connected 0\n')
    expect((await get('/healthz')).status).toBe(200)
    await nats.restart()
    await until(async () => (await get('/readyz')).status === 200, '/readyz 200 again')
  })

  it('a drain is not ready at once, hands every account over (checkpoint first) and stats() reads without resetting', async () => {
    relay = await startRelay({ config: configOf(sim), nats: { servers: nats.url }, leaseTtlMs: 1_500, partitions: 16, instanceId: 'ops' })
    await addAccounts({ servers: nats.url }, [KEY])
    await until(() => relay!.owned().includes(KEY), 'the account to be owned')
    await sim.waitForSubscribers(A)
    await sim.instantOpen(A)
    await until(() => relay!.stats().published === 3, 'three publishes')
    const first = relay.stats()
    expect(relay.stats()).toEqual(first)
    const drained = relay.close()
    expect(await relay.ready()).toMatchObject({ ready: false, reason: expect.stringContaining('draining'), checks: { draining: true } })
    await drained
    expect(relay.stats()).toMatchObject({ owned: 0, handoffs: 1, checkpoints: expect.any(Number) })
    expect(relay.stats().checkpoints).toBeGreaterThan(0)
  })
})
