import { type JetStreamClient, jetstream } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { firstValueFrom, take, toArray } from 'rxjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { until } from '../test/cluster.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { type ConsumedNotification, consumeNotifications } from './consumeNotifications.js'
import { type Relay, startRelay } from './startRelay.js'

const A = '0xabc0000000000000000000000000000000000001'
const B = '0xabc0000000000000000000000000000000000002'
let nats: Awaited<ReturnType<typeof startNats>>
let sim: SolverSimulator
let relay: Relay
let nc: NatsConnection
let js: JetStreamClient
beforeAll(async () => {
  if (!natsAvailable) return
  ;[nats, sim] = await Promise.all([startNats(), startSolverSimulator({ protocol: 'rasa' })])
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  relay = await startRelay({ config, nats: { servers: nats.url }, leaseTtlMs: 1_500, partitions: 16, instanceId: 'c1' })
  await addAccounts({ servers: nats.url }, [accountKey(1, 'beta', A), accountKey(1, 'beta', B)])
  await until(() => relay.owned().length === 2, 'both accounts owned')
  await sim.waitForSubscribers(A)
  await sim.waitForSubscribers(B)
  nc = await connect({ servers: nats.url })
  js = jetstream(nc)
})
afterAll(async () => {
  if (!natsAvailable) return
  await relay.close()
  await nc.close()
  await sim.close()
  await nats.close()
})

/** Publishes a lifecycle on `account` through the simulator and the relay; resolves once JetStream holds it. */
async function lifecycle(account: string): Promise<number[]> {
  const before = relay.stats().published
  const { frames } = await sim.instantOpen(account)
  await until(() => relay.stats().published === before + 3, 'the relay to publish it')
  // The first frame carries the temporary (negative) id, the others the quote id.
  return frames.map((f) => Number(f.quote_id))
}

let resolveB: (ids: number[]) => void = () => {}
const bLifecycleOfFirstTest = new Promise<number[]>((resolve) => (resolveB = resolve))
const quoteIds = (items: ConsumedNotification[]) => items.map((m) => m.notification.quoteId)

describe.skipIf(!natsAvailable)('consumeNotifications', () => {
  it('reads what the relay published, filtered by account, as an Observable; a message that is not a notification is skipped and counted', async () => {
    const q1 = await lifecycle(A)
    resolveB(await lifecycle(B))
    await js.publish(`solver.notifications.${accountKey(1, 'beta', A)}`, '{"hello":"not a notification"}')
    const q3 = await lifecycle(A)
    const consumer = consumeNotifications({ nats: { servers: nats.url }, filter: { account: A }, deliver: 'all' })
    const got = await firstValueFrom(consumer.pipe(take(6), toArray()))
    expect(quoteIds(got)).toEqual([...q1, ...q3])
    expect(got.every((m) => m.subject === `solver.notifications.${accountKey(1, 'beta', A)}` && m.notification.account.toLowerCase() === A)).toBe(true)
    expect(got.map((m) => m.seq)).toEqual([...got.map((m) => m.seq)].sort((a, b) => a - b))
    expect(consumer.stats()).toEqual({ delivered: 6, skipped: 1 })
  })

  it('a durable consumer resumes after a restart where it stopped: what it acknowledged never comes again, the rest comes once acknowledged', async () => {
    const q1 = await lifecycle(B)
    const since = { since: Math.floor(Date.now() / 1000) - 60 }
    const read = async (count: number, deliver?: { since: number }) => {
      const got: ConsumedNotification[] = []
      for await (const m of consumeNotifications({ nats: { servers: nats.url }, filter: { account: B }, durable: 'alerts', deliver, ackWaitMs: 1_000 })) {
        got.push(m)
        m.ack()
        if (got.length === count) break
      }
      return got
    }
    const first = await read(2, since)
    const q2 = await lifecycle(B)
    // `since` a minute ago covers B's lifecycle of the first test too: 9 notifications in all. What the
    // first reader pulled but did not read comes again after the ack wait (a second), in some order.
    const rest = await read(7)
    const earlier = await bLifecycleOfFirstTest
    expect(quoteIds(first)).toEqual(earlier.slice(0, 2))
    const seqs = [...first, ...rest].map((m) => m.seq)
    expect(new Set(seqs).size).toBe(9)
    expect(quoteIds([...first, ...rest]).sort((a, b) => a - b)).toEqual([...earlier, ...q1, ...q2].sort((a, b) => a - b))
    expect(rest.every((m) => m.seq > first[1]!.seq)).toBe(true)
  })

  it('an ephemeral consumer on deliver new gets only what comes after it, and is removed when unsubscribed', async () => {
    const jsm = await (await import('@nats-io/jetstream')).jetstreamManager(nc)
    const consumers = async () => (await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.consumer_count
    const before = await consumers()
    const consumer = consumeNotifications({ nats: { servers: nats.url }, filter: { chainId: 1, solverId: 'beta' } })
    const got: ConsumedNotification[] = []
    const sub = consumer.subscribe((m) => got.push(m))
    await until(async () => (await consumers()) === before + 1, 'the consumer to exist')
    const q = await lifecycle(A)
    await until(() => got.length === 3, 'three notifications')
    expect(quoteIds(got)).toEqual(q)
    sub.unsubscribe()
    await until(async () => (await consumers()) === before, 'the ephemeral consumer to be deleted (the durable one stays)')
  })

  it('bad options are a RelayError naming what to fix', () => {
    const nats_ = { servers: 'nats://127.0.0.1:1' }
    expect(() => consumeNotifications({ nats: nats_, filter: { account: '0xABC' } })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('filter.account') }))
    expect(() => consumeNotifications({ nats: nats_, deliver: { since: Date.now() } })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('milliseconds?') }))
    expect(() => consumeNotifications({ nats: nats_, durable: 'a.b' })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
    expect(() => consumeNotifications({ nats: nats_, filter: { chainId: 0 } })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
  })
})
