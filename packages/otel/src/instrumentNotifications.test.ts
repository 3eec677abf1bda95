import { SpanKind } from '@opentelemetry/api'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { type NotificationEvent, memoryCheckpoints } from '@solver-notifications/core'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { METRICS, SPANS, instrumentNotifications } from './instrumentNotifications.js'

// The OpenTelemetry bridge against the client's own counters (in-memory exporters of the OTel SDK, real
// sockets and HTTP to the simulator): after drops, backfills, polls and a reload, the counters equal
// stats() exactly and each histogram's count equals what it counts.

let live: Live
let exporter: InMemoryMetricExporter
let reader: PeriodicExportingMetricReader
let meterProvider: MeterProvider
let spans: InMemorySpanExporter
let tracerProvider: BasicTracerProvider

beforeEach(async () => {
  live = await startLive({ reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, heartbeat: { intervalMs: 50, timeoutMs: 1_000 }, search: { timeoutMs: 2_000 } })
  exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  meterProvider = new MeterProvider({ readers: [reader] })
  spans = new InMemorySpanExporter()
  tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
})
afterEach(async () => {
  await live.stop()
  await meterProvider.shutdown()
})

/** Collects now: every metric's data points, by name. */
async function collect() {
  exporter.reset()
  await reader.forceFlush()
  const all: ResourceMetrics[] = exporter.getMetrics()
  const points = new Map<string, Array<{ attributes: Record<string, unknown>; value: unknown }>>()
  for (const rm of all) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) points.set(m.descriptor.name, m.dataPoints as never)
  const sum = (name: string, where: (a: Record<string, unknown>) => boolean = () => true) =>
    (points.get(name) ?? []).filter((p) => where(p.attributes)).reduce((n, p) => n + (typeof p.value === 'number' ? p.value : (p.value as { count: number }).count), 0)
  const series = [...points.values()].reduce((n, list) => n + list.length, 0)
  return { points, sum, series }
}

/** A span of an operation: named `{operation} {chainId}.{solverId}`, as the messaging conventions name spans. */
const named = (name: string, operation: string) => name.startsWith(`${operation} `) && /^\S+ \d+\.[\w-]+$/.test(name)

const finished = (v: NotificationEvent[]) => v.filter((e) => e.type === 'status' && e.backfill && e.backfill.state !== 'started').length

describe.each(['enigma', 'rasa'] as const)('%s', (protocol) => {
  it('after drops, backfills, polls and a reload: counters equal stats() exactly, histogram counts equal what they count, spans for dials, backfills and waitFor', async () => {
    const sim = live.sims[protocol]
    const solverId = live.solverOf[protocol]
    const { stop } = instrumentNotifications(live.client, { meterProvider, tracerProvider })
    const checkpoint = memoryCheckpoints()
    const resume = { checkpoint, poll: { afterMs: 50, intervalMs: 100 } }
    let a = record(live.client.events({ account: accounts[0], solverId }, { resume }))
    const plain = record(live.client.notifications({ account: accounts[0], solverId }))
    await a.until((v) => finished(v) >= 1)
    await sim.waitForSubscribers(accounts[0])
    const first = await sim.instantOpen(accounts[0])
    await plain.until((v) => v.length >= first.frames.length)
    // A drop: what was published meanwhile comes back by backfill.
    await sim.dropAll(1012)
    const missed = await sim.instantOpen(accounts[0])
    await a.until((v) => missed.frames.slice(-1).every((f) => v.some((e) => e.type === 'notification' && e.notification.id === f.id)))
    // Refused sockets: history is polled.
    sim.refuseSockets()
    await sim.dropAll(1012)
    const polled = await sim.instantOpen(accounts[0])
    await a.until((v) => polled.frames.slice(-1).every((f) => v.some((e) => e.type === 'notification' && e.notification.id === f.id)))
    sim.refuseSockets(false)
    // A reload: the stream goes, another resumes from its checkpoint.
    // Whole again before the reload: its reconnect backfill ended after the socket opened.
    await a.until((v) => {
      let opened = -1
      v.forEach((e, i) => {
        if (e.type === 'status' && e.status === 'open' && e.polling === false) opened = i
      })
      return opened >= 0 && finished(v.slice(opened)) >= 1
    })
    a.subscription.unsubscribe()
    await sim.instantOpen(accounts[0])
    a = record(live.client.events({ account: accounts[0], solverId }, { resume }))
    await a.until((v) => finished(v) >= 1)
    await sim.waitForSubscribers(accounts[0])
    const last = await sim.instantOpen(accounts[0])
    await a.until((v) => last.frames.every((f) => v.some((e) => e.type === 'notification' && e.notification.id === f.id)))
    const quoteId = last.quoteId
    const reached = await live.client.waitFor({ account: accounts[0], solverId, quoteId }, { until: () => true, timeoutMs: 5_000 })
    expect(reached.quoteId).toBe(quoteId)
    // Quiet: nothing held, every backfill ended.
    await expect.poll(() => live.client.stats().backfills.runs === spans.getFinishedSpans().filter((s) => named(s.name, SPANS.backfill)).length, { timeout: 10_000 }).toBe(true)

    const stats = live.client.stats()
    const { sum, series } = await collect()
    const live_ = (a: Record<string, unknown>) => a['solver_notifications.source'] === 'live'
    expect(sum(METRICS.consumed, live_)).toBe(stats.frames.delivered)
    expect(sum(METRICS.consumed, (x) => !live_(x))).toBe(stats.backfills.recovered)
    expect(sum(METRICS.consumed, (x) => x['solver_notifications.source'] === 'poll')).toBeGreaterThan(0)
    expect(sum(METRICS.backfillRecovered)).toBe(stats.backfills.recovered)
    expect(sum(METRICS.deliveryDuration)).toBe(stats.frames.delivered + stats.backfills.recovered)
    expect(sum(METRICS.age)).toBe(stats.frames.delivered + stats.backfills.recovered)
    expect(sum(METRICS.backfillDuration)).toBe(stats.backfills.runs)
    // Two drops, two gaps: the reload (released once whole, subscribed again) is none.
    expect(sum(METRICS.gapDuration)).toBe(2)
    expect(sum(METRICS.reconnects)).toBe(stats.reconnects)
    for (const status of ['connecting', 'open', 'reconnecting'] as const) expect(sum(METRICS.sockets, (x) => x['solver_notifications.socket.status'] === status)).toBe(stats.socketStatus[status])
    // Pings every 50 ms here: one has been answered by now, or will be in a moment.
    await expect.poll(async () => (await collect()).sum(METRICS.heartbeatRtt) > 0).toBe(true)
    expect(series).toBeLessThanOrEqual(200)
    const finishedSpans = spans.getFinishedSpans()
    const connects = finishedSpans.filter((s) => named(s.name, SPANS.connect))
    expect(connects.length).toBeGreaterThanOrEqual(3)
    expect(connects.some((s) => s.attributes['solver_notifications.outcome'] === 'open')).toBe(true)
    for (const s of connects) expect(s.attributes['server.address']).toBe('127.0.0.1')
    expect(finishedSpans.filter((s) => named(s.name, SPANS.backfill)).length).toBe(stats.backfills.runs)
    expect(finishedSpans.filter((s) => named(s.name, SPANS.waitFor)).map((s) => s.attributes['solver_notifications.outcome'])).toEqual(['reached'])
    expect(finishedSpans.filter((s) => named(s.name, SPANS.process))).toEqual([])
    // No account or quote id anywhere in an attribute.
    const text = JSON.stringify([...(await collect()).points.values()].flat().map((p) => p.attributes)) + JSON.stringify(finishedSpans.map((s) => s.attributes))
    expect(text.toLowerCase()).not.toContain(accounts[0].toLowerCase())
    stop()
  })
})

it('a silent loss a verification finds is counted, equal to stats().continuity.silentLosses, by destination', async () => {
  instrumentNotifications(live.client, { meterProvider, tracerProvider })
  const events = record(live.client.events({ account: accounts[0], solverId: 'alpha' }, { resume: { verify: { intervalMs: 1_000 } } }))
  await events.until((v) => v.some((e) => e.type === 'continuity' && e.continuity.state === 'complete'))
  await live.enigma.waitForSubscribers(accounts[0])
  await live.enigma.publish({ id: 'unsent', quote_id: 9, temp_quote_id: -9, modify_time: Math.floor(Date.now() / 1000), counterparty_address: accounts[0], last_seen_action: 'InstantRFQ', action_status: 'success' }, { live: false })
  await events.until((v) => v.some((e) => e.type === 'notification' && e.notification.id === 'unsent'))
  const { sum } = await collect()
  expect(live.client.stats().continuity.silentLosses).toBe(1)
  expect(sum(METRICS.silentLosses, (a) => a['messaging.destination.name'] === '42161.alpha')).toBe(1)
})

it('resume streams by continuity state: complete when whole, catching-up while the socket is refused, none once the stream ends', async () => {
  instrumentNotifications(live.client, { meterProvider, tracerProvider })
  const streams = [0, 1].map((i) => record(live.client.events({ account: accounts[i]!, solverId: 'alpha' }, { resume: true })))
  const state = (v: NotificationEvent[]) => v.flatMap((e) => (e.type === 'continuity' ? [e.continuity.state] : [])).at(-1)
  await Promise.all(streams.map((s) => s.until((v) => state(v) === 'complete')))
  const byState = async () => {
    const { sum } = await collect()
    return Object.fromEntries(['complete', 'catching-up', 'incomplete'].map((c) => [c, sum(METRICS.streams, (a) => a['solver_notifications.continuity'] === c)]))
  }
  expect(await byState()).toEqual({ complete: 2, 'catching-up': 0, incomplete: 0 })
  live.enigma.refuseSockets()
  await live.enigma.dropAll(1012)
  await Promise.all(streams.map((s) => s.until((v) => state(v) === 'catching-up')))
  expect(await byState()).toEqual({ complete: 0, 'catching-up': 2, incomplete: 0 })
  streams[0]!.subscription.unsubscribe()
  expect(await byState()).toEqual({ complete: 0, 'catching-up': 1, incomplete: 0 })
})

it('notificationSpans: one process span (CONSUMER) per notification delivered', async () => {
  const { stop } = instrumentNotifications(live.client, { meterProvider, tracerProvider, notificationSpans: true })
  const plain = record(live.client.notifications({ account: accounts[1], solverId: 'beta' }))
  await live.rasa.waitForSubscribers(accounts[1])
  const { frames } = await live.rasa.instantOpen(accounts[1])
  await plain.until((v) => v.length === frames.length)
  const process = spans.getFinishedSpans().filter((s) => named(s.name, SPANS.process))
  expect(process).toHaveLength(frames.length)
  expect(process.every((s) => s.kind === SpanKind.CONSUMER)).toBe(true)
  stop()
})

it('notificationHistograms: false leaves out the two per-notification histograms, every count stays exact', async () => {
  const { stop } = instrumentNotifications(live.client, { meterProvider, tracerProvider, notificationHistograms: false })
  const plain = record(live.client.notifications({ account: accounts[2], solverId: 'beta' }))
  await live.rasa.waitForSubscribers(accounts[2])
  const { frames } = await live.rasa.instantOpen(accounts[2])
  await plain.until((v) => v.length === frames.length)
  const { points, sum } = await collect()
  expect(frames.length).toBeGreaterThan(1)
  expect(sum(METRICS.consumed)).toBe(frames.length)
  expect(sum(METRICS.consumed)).toBe(live.client.stats().frames.delivered)
  // Not created at all: no empty instrument on a dashboard.
  expect(points.has(METRICS.deliveryDuration)).toBe(false)
  expect(points.has(METRICS.age)).toBe(false)
  expect([...points.keys()]).toContain(METRICS.sockets)
  stop()
})

it('10,000 subscribed accounts stay within 200 series; stop() leaves no listener and no instrument callback', async () => {
  const { stop } = instrumentNotifications(live.client, { meterProvider, tracerProvider })
  const many = Array.from({ length: 10_000 }, (_, i) => `0x${(0xa0000 + i).toString(16).padStart(40, '0')}` as const)
  const subs = many.map((account) => live.client.notifications({ account, solverId: 'beta' }).subscribe())
  await live.rasa.waitForSubscribers(many[9_999]!)
  for (let i = 0; i < 100; i++) await live.rasa.publish({ id: `m-${i}`, quote_id: 10 + i, temp_quote_id: -(10 + i), modify_time: live.rasa.tick(), counterparty_address: many[i * 97]!, last_seen_action: 'InstantRFQ', action_status: 'success' })
  await expect.poll(() => live.client.stats().frames.delivered, { timeout: 10_000 }).toBe(100)
  const { series, sum } = await collect()
  expect(sum(METRICS.consumed)).toBe(100)
  expect(series).toBeLessThanOrEqual(200)
  stop()
  expect((live.client.diagnostics as unknown as { active: boolean }).active).toBe(false)
  // The observable callbacks are gone: a collection after stop() reads nothing of the client.
  let read = 0
  const stats = live.client.stats.bind(live.client)
  live.client.stats = () => {
    read++
    return stats()
  }
  await collect()
  expect(read).toBe(0)
  for (const s of subs) s.unsubscribe()
}, 60_000)
