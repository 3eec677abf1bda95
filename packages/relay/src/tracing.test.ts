import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, expect, it } from 'vitest'
import { until } from '../test/cluster.js'
import { natsAvailable, startNats } from '../test/natsServer.js'
import { accountKey } from './accountKeys.js'
import { addAccounts } from './accountsAdmin.js'
import { type ConsumedNotification, consumeNotifications } from './consumeNotifications.js'
import { startRelay } from './startRelay.js'
import { PROCESS_SPAN, PUBLISH_SPAN, parseTraceparent, traceparentOf } from './tracing.js'

// One notification's trace through the relay (real nats-server): the relay stamps each message with
// Solver-Received-At and, tracing, the traceparent of its PRODUCER span; the consumer's CONSUMER span
// links to it (same trace id) and its handler gets traceContext and ageMs.

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const A = '0xabc0000000000000000000000000000000000777'

async function setup(traced: boolean) {
  const nats = await startNats()
  cleanups.push(() => nats.close())
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  cleanups.push(() => sim.close())
  const relaySpans = new InMemorySpanExporter()
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: sim.httpUrl, notifications: { protocol: 'rasa' as const, url: sim.wsUrl } } } } } }
  const relay = await startRelay({ config, nats: { servers: nats.url }, leaseTtlMs: 3_000, instanceId: 'traced', partitions: 4, tracerProvider: traced ? new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(relaySpans)] }) : undefined })
  cleanups.push(() => relay.close())
  await addAccounts({ servers: nats.url }, [accountKey(1, 'beta', A)])
  await until(() => relay.owned().length === 1, 'the account owned')
  await sim.waitForSubscribers(A)
  return { nats, sim, relay, relaySpans }
}

it.skipIf(!natsAvailable)('traced: every message carries Solver-Received-At and the traceparent of the relay publish span; the consumer span links to it; the handler gets traceContext and ageMs', async () => {
  const { nats, sim, relay, relaySpans } = await setup(true)
  const consumerSpans = new InMemorySpanExporter()
  const consumer = consumeNotifications({ nats: { servers: nats.url }, deliver: 'all', tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(consumerSpans)] }) })
  const got: ConsumedNotification[] = []
  const sub = consumer.subscribe((m) => {
    got.push(m)
    m.ack()
  })
  cleanups.push(() => sub.unsubscribe())
  const before = Date.now()
  const { frames } = await sim.instantOpen(A)
  await until(() => got.length === frames.length, 'every notification consumed')
  // The message itself, read by sequence: both headers.
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  const jsm = await jetstreamManager(nc)
  const stored = await jsm.streams.getMessage('SOLVER_NOTIFICATIONS', { seq: got[0]!.seq })
  const receivedAt = Number(stored!.header!.get('Solver-Received-At'))
  expect(receivedAt).toBeGreaterThanOrEqual(before - 1_000)
  const producer = parseTraceparent(stored!.header!.get('traceparent'))
  expect(producer).toBeDefined()
  const published = relaySpans.getFinishedSpans().filter((s) => s.name === `${PUBLISH_SPAN} solver.notifications`)
  expect(published).toHaveLength(frames.length)
  const mine = published.find((s) => s.spanContext().spanId === producer!.spanId)!
  expect(mine.kind).toBe(3) // PRODUCER
  expect(mine.attributes).toMatchObject({ 'messaging.system.name': 'nats', 'messaging.operation.type': 'send', 'messaging.destination.name': got[0]!.subject, 'messaging.message.id': stored!.header!.get('Nats-Msg-Id') })
  expect(traceparentOf(mine.spanContext())).toBe(stored!.header!.get('traceparent'))
  // The consumer: the context handed over, an age, and a CONSUMER span linked to the producer's (same trace).
  expect(got[0]!.traceContext).toMatchObject({ traceId: producer!.traceId, spanId: producer!.spanId })
  for (const m of got) expect(m.ageMs).toBeGreaterThanOrEqual(0)
  await until(() => consumerSpans.getFinishedSpans().filter((s) => s.name === `${PROCESS_SPAN} SOLVER_NOTIFICATIONS`).length === frames.length, 'a process span per message')
  const processed = consumerSpans.getFinishedSpans().filter((s) => s.name === `${PROCESS_SPAN} SOLVER_NOTIFICATIONS`)
  expect(processed.every((s) => s.kind === 4)).toBe(true) // CONSUMER
  const linked = processed.find((s) => s.links[0]?.context.spanId === producer!.spanId)!
  expect(linked.links[0]!.context.traceId).toBe(mine.spanContext().traceId)
  // The relay's own figure of it: receive time less modify_time, one observation per notification.
  expect(await relay.registry.getSingleMetricAsString('solver_relay_notification_age_seconds')).toMatch(new RegExp(`solver_relay_notification_age_seconds_count ${frames.length}$`, 'm'))
})

it.skipIf(!natsAvailable)('not traced: the message carries Solver-Received-At only; the handler still gets ageMs', async () => {
  const { nats, sim } = await setup(false)
  const consumer = consumeNotifications({ nats: { servers: nats.url }, deliver: 'all' })
  const got: ConsumedNotification[] = []
  const sub = consumer.subscribe((m) => got.push(m))
  cleanups.push(() => sub.unsubscribe())
  const { frames } = await sim.instantOpen(A)
  await until(() => got.length === frames.length, 'every notification consumed')
  const nc = await connect({ servers: nats.url })
  cleanups.push(() => nc.close())
  const stored = await (await jetstreamManager(nc)).streams.getMessage('SOLVER_NOTIFICATIONS', { seq: got[0]!.seq })
  expect(Number(stored!.header!.get('Solver-Received-At'))).toBeGreaterThan(0)
  expect(stored!.header!.get('traceparent')).toBe('')
  expect(got[0]!.traceContext).toBeUndefined()
  expect(got[0]!.ageMs).toBeGreaterThanOrEqual(0)
})
