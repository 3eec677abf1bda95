import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import {
  ATTR_ERROR_TYPE,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
  MESSAGING_OPERATION_TYPE_VALUE_RECEIVE,
  METRIC_MESSAGING_CLIENT_CONSUMED_MESSAGES,
  METRIC_MESSAGING_CLIENT_OPERATION_DURATION,
} from '@opentelemetry/semantic-conventions/incubating'
import type { DiagnosticEvent, Notification } from '@solver-notifications/core'
import { accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BUCKETS, METRICS, SPANS, instrumentNotifications } from './instrumentNotifications.js'

// What an SRE builds on: histograms in buckets fit for seconds, names as the OpenTelemetry messaging
// conventions (their incubating exports: a rename there fails here), nothing failing unseen, and two
// clients on one provider adding up.

let exporter: InMemoryMetricExporter
let reader: PeriodicExportingMetricReader
let meterProvider: MeterProvider
let spans: InMemorySpanExporter
let tracerProvider: BasicTracerProvider

beforeEach(() => {
  exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  meterProvider = new MeterProvider({ readers: [reader] })
  spans = new InMemorySpanExporter()
  tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
})
afterEach(() => meterProvider.shutdown())

type Point = { attributes: Record<string, unknown>; value: number | { count: number; buckets: { boundaries: number[]; counts: number[] } } }
async function collect() {
  exporter.reset()
  await reader.forceFlush()
  const points = new Map<string, Point[]>()
  for (const rm of exporter.getMetrics() as ResourceMetrics[]) for (const sm of rm.scopeMetrics) for (const m of sm.metrics) points.set(m.descriptor.name, m.dataPoints as never)
  const sum = (name: string, where: (a: Record<string, unknown>) => boolean = () => true) =>
    (points.get(name) ?? []).filter((p) => where(p.attributes)).reduce((n, p) => n + (typeof p.value === 'number' ? p.value : p.value.count), 0)
  return { points, sum }
}

/** A client's seam without a client: the test says what happened and when. */
function fakeClient() {
  const listeners: Array<(e: DiagnosticEvent) => void> = []
  const stats = { reconnects: 0, socketStatus: { idle: 0, connecting: 0, open: 0, reconnecting: 0, closed: 0 } }
  return {
    emit: (e: DiagnosticEvent) => {
      for (const l of listeners) l(e)
    },
    client: {
      diagnostics: {
        subscribe(listener: (e: DiagnosticEvent) => void) {
          listeners.push(listener)
          return () => listeners.splice(listeners.indexOf(listener), 1)
        },
      },
      stats: () => stats,
    } as never,
  }
}

const notification = (modifyTime: number) => ({ protocol: 'rasa', chainId: 42161, solverId: 'beta', modifyTime }) as Notification

/** The bucket a value falls in (the first boundary at or above it; the last is +Inf). */
const bucketOf = (boundaries: readonly number[], value: number) => {
  const i = boundaries.findIndex((b) => value <= b)
  return i < 0 ? boundaries.length : i
}
/** The p-quantile as Prometheus' histogram_quantile reads it: linear within the bucket it falls in. */
function quantile(boundaries: readonly number[], counts: readonly number[], p: number): number {
  const total = counts.reduce((a, b) => a + b, 0)
  const rank = p * total
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    if (seen + counts[i]! >= rank) {
      const lower = i === 0 ? 0 : boundaries[i - 1]!
      const upper = i < boundaries.length ? boundaries[i]! : boundaries[boundaries.length - 1]!
      return lower + ((upper - lower) * (rank - seen)) / counts[i]!
    }
    seen += counts[i]!
  }
  return boundaries[boundaries.length - 1]!
}
const counts = (boundaries: readonly number[], values: readonly number[]) => {
  const c = new Array<number>(boundaries.length + 1).fill(0)
  for (const v of values) c[bucketOf(boundaries, v)]!++
  return c
}

describe('histogram buckets', () => {
  it('every histogram is exported with explicit boundaries in seconds that put 5 ms, 300 ms and 4 s in three different buckets', async () => {
    const { emit, client } = fakeClient()
    const { stop } = instrumentNotifications(client, { meterProvider, tracerProvider })
    const now = performance.now()
    const n = notification(Math.floor(Date.now() / 1000) - 4)
    emit({ type: 'frame', notification: n, at: now - 300 })
    emit({ type: 'heartbeat', protocol: 'rasa', rttMs: 5 })
    const k = {}
    emit({ type: 'gap', protocol: 'rasa', stream: 'k', instance: k })
    emit({ type: 'backfill', phase: 'start', id: 2, protocol: 'rasa', destination: '42161.beta', stream: 'k', instance: k, since: 0, poll: false })
    emit({ type: 'backfill', phase: 'end', id: 2, outcome: 'finished', rows: 0, pages: 1, recovered: 0, whole: true })
    emit({ type: 'search', phase: 'start', id: 3, protocol: 'rasa', destination: '42161.beta', url: 'http://127.0.0.1:1' })
    emit({ type: 'search', phase: 'end', id: 3, outcome: 'ok' })
    const { points } = await collect()
    const histograms = [METRICS.deliveryDuration, METRICS.age, METRICS.backfillDuration, METRICS.gapDuration, METRICS.heartbeatRtt, METRICS.operationDuration]
    for (const name of histograms) {
      const point = points.get(name)?.[0]
      expect(point, name).toBeDefined()
      const { boundaries } = (point!.value as { buckets: { boundaries: number[] } }).buckets
      expect(new Set([0.005, 0.3, 4].map((v) => bucketOf(boundaries, v))).size, `${name}: ${boundaries.join(',')}`).toBe(3)
      // Seconds, not the SDK's default buckets (0, 5, 10, … 10000), in which every delivery is le=5.
      expect(boundaries[0], name).toBeLessThanOrEqual(0.005)
      expect([...boundaries], name).toEqual(name === METRICS.deliveryDuration || name === METRICS.heartbeatRtt || name === METRICS.operationDuration ? [...BUCKETS.short] : [...BUCKETS.long])
    }
    stop()
  })

  it('the p99 read from the exported buckets of a known distribution is within a bucket of the truth (with the SDK default buckets it is not)', async () => {
    const { emit, client } = fakeClient()
    const { stop } = instrumentNotifications(client, { meterProvider, tracerProvider })
    // 1,000 round trips: most between 20 and 200 ms, a tail up to 400 ms (a deterministic generator).
    let seed = 7
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
    const values = Array.from({ length: 1000 }, (_, i) => (i % 50 === 0 ? 0.25 + random() * 0.15 : 0.02 + random() * 0.18))
    for (const v of values) emit({ type: 'heartbeat', protocol: 'rasa', rttMs: v * 1000 })
    const { points } = await collect()
    const { buckets, count } = points.get(METRICS.heartbeatRtt)![0]!.value as { count: number; buckets: { boundaries: number[]; counts: number[] } }
    expect(count).toBe(1000)
    const truth = [...values].sort((a, b) => a - b)[989]!
    const read = quantile(buckets.boundaries, buckets.counts, 0.99)
    expect(Math.abs(bucketOf(buckets.boundaries, read) - bucketOf(buckets.boundaries, truth))).toBeLessThanOrEqual(1)
    expect(read / truth).toBeGreaterThan(0.5)
    expect(read / truth).toBeLessThan(2)
    // The same distribution in the SDK's default boundaries reads a p99 of seconds: useless for an alert.
    const sdkDefault = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000]
    expect(quantile(sdkDefault, counts(sdkDefault, values), 0.99) / truth).toBeGreaterThan(10)
    stop()
  })
})

describe('the messaging conventions', () => {
  it('names: the metrics and attributes the conventions name are theirs, as @opentelemetry/semantic-conventions exports them', () => {
    expect(METRICS.consumed).toBe(METRIC_MESSAGING_CLIENT_CONSUMED_MESSAGES)
    expect(METRICS.operationDuration).toBe(METRIC_MESSAGING_CLIENT_OPERATION_DURATION)
    // The other names are this library's own: the conventions have none for them.
    for (const name of Object.values(METRICS)) expect(name.startsWith('messaging.') || name.startsWith('solver_notifications.'), name).toBe(true)
  })

  let live: Awaited<ReturnType<typeof startLive>>
  beforeEach(async () => {
    live = await startLive({ reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, search: { timeoutMs: 2_000, retries: 0 } })
  })
  afterEach(() => live.stop())

  it('consumed points carry messaging.operation.name and a low-cardinality destination; span names are "{operation} {destination}"', async () => {
    const { stop } = instrumentNotifications(live.client, { meterProvider, tracerProvider, notificationSpans: true })
    const plain = record(live.client.notifications({ account: accounts[0], solverId: 'beta' }))
    await live.rasa.waitForSubscribers(accounts[0])
    const { frames } = await live.rasa.instantOpen(accounts[0])
    await plain.until((v) => v.length === frames.length)
    await live.client.search({ account: accounts[0], solverId: 'beta' })
    const { points, sum } = await collect()
    const consumed = points.get(METRICS.consumed)!
    expect(sum(METRICS.consumed)).toBe(frames.length)
    for (const p of consumed) {
      expect(p.attributes[ATTR_MESSAGING_OPERATION_NAME]).toBe('process')
      expect(p.attributes[ATTR_MESSAGING_SYSTEM_NAME]).toBe('solver_notifications')
      expect(p.attributes[ATTR_MESSAGING_DESTINATION_NAME]).toBe('42161.beta')
    }
    const finished = spans.getFinishedSpans()
    expect(finished.length).toBeGreaterThan(frames.length)
    for (const s of finished) expect(s.name).toMatch(new RegExp(`^(${Object.values(SPANS).join('|')}) 42161\\.beta$`))
    const process = finished.filter((s) => s.name === `${SPANS.process} 42161.beta`)
    expect(process).toHaveLength(frames.length)
    for (const s of process) expect(s.attributes[ATTR_MESSAGING_OPERATION_TYPE]).toBe(MESSAGING_OPERATION_TYPE_VALUE_PROCESS)
    const search = finished.filter((s) => s.name === `${SPANS.search} 42161.beta`)
    expect(search).toHaveLength(1)
    expect(search[0]!.attributes[ATTR_MESSAGING_OPERATION_TYPE]).toBe(MESSAGING_OPERATION_TYPE_VALUE_RECEIVE)
    expect(search[0]!.attributes[ATTR_SERVER_ADDRESS]).toBe('127.0.0.1')
    expect(search[0]!.status.code).toBe(0)
    stop()
  })

  it('a 503 search and a refused dial each leave a metric point and an error span naming the cause', async () => {
    const { stop } = instrumentNotifications(live.client, { meterProvider, tracerProvider })
    live.rasa.injectHttpFault({ times: 1, status: 503 })
    await expect(live.client.search({ account: accounts[0], solverId: 'beta' })).rejects.toMatchObject({ code: 'HTTP_STATUS', status: 503 })
    // searchPages: one walk, one operation.
    live.enigma.injectHttpFault({ times: 1, status: 503 })
    const walk = async () => {
      for await (const _page of live.client.searchPages({ account: accounts[0], solverId: 'alpha' })) void _page
    }
    await expect(walk()).rejects.toMatchObject({ code: 'HTTP_STATUS' })
    // A dial refused: nothing listens on that port.
    await live.rasa.close()
    const events = record(live.client.events({ account: accounts[1], solverId: 'beta' }))
    await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'reconnecting'))
    events.subscription.unsubscribe()
    const { points } = await collect()
    const failedOps = (points.get(METRICS.operationDuration) ?? []).filter((p) => p.attributes[ATTR_ERROR_TYPE] === 'HTTP_STATUS')
    expect(failedOps.reduce((n, p) => n + (p.value as { count: number }).count, 0)).toBe(2)
    const searchErrors = (points.get(METRICS.errors) ?? []).filter((p) => p.attributes[ATTR_MESSAGING_OPERATION_NAME] === SPANS.search)
    expect(searchErrors.reduce((n, p) => n + (p.value as number), 0)).toBe(2)
    const finished = spans.getFinishedSpans()
    const searches = finished.filter((s) => s.name.startsWith(`${SPANS.search} `))
    expect(searches.map((s) => [s.name, s.status.code, s.status.message, s.attributes[ATTR_ERROR_TYPE]])).toEqual([
      ['search 42161.beta', 2, 'HTTP_STATUS (HTTP 503)', 'HTTP_STATUS'],
      ['search 42161.alpha', 2, 'HTTP_STATUS (HTTP 503)', 'HTTP_STATUS'],
    ])
    const refused = finished.filter((s) => s.name === `${SPANS.connect} 42161.beta` && s.status.code === 2)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(refused[0]!.status.message).toMatch(/connection refused \(ECONNREFUSED\)/)
    expect(refused[0]!.attributes[ATTR_ERROR_TYPE]).toBe('ECONNREFUSED')
    expect((points.get(METRICS.errors) ?? []).some((p) => p.attributes[ATTR_ERROR_TYPE] === 'SOCKET')).toBe(true)
    stop()
  })
})

describe('counts that stay true', () => {
  it('two clients on one meter provider: consumed is the sum of both clients, sockets too; a stopped client keeps its counts', async () => {
    const one = await startLive()
    const two = await startLive()
    try {
      const a = instrumentNotifications(one.client, { meterProvider })
      const b = instrumentNotifications(two.client, { meterProvider })
      const first = record(one.client.notifications({ account: accounts[0], solverId: 'beta' }))
      const second = record(two.client.notifications({ account: accounts[0], solverId: 'beta' }))
      await one.rasa.waitForSubscribers(accounts[0])
      await two.rasa.waitForSubscribers(accounts[0])
      let sent1 = 0
      let sent2 = 0
      while (sent1 < 5) sent1 += (await one.rasa.instantOpen(accounts[0])).frames.length
      while (sent2 < 8) sent2 += (await two.rasa.instantOpen(accounts[0])).frames.length
      await first.until((v) => v.length === sent1)
      await second.until((v) => v.length === sent2)
      const both = await collect()
      expect(sent1).not.toBe(sent2)
      expect(both.sum(METRICS.consumed)).toBe(one.client.stats().frames.delivered + two.client.stats().frames.delivered)
      expect(both.sum(METRICS.consumed)).toBe(sent1 + sent2)
      expect(both.sum(METRICS.sockets, (x) => x['solver_notifications.socket.status'] === 'open')).toBe(2)
      // One stops: its notifications stay counted (a cumulative counter never goes back), its socket is not.
      a.stop()
      const after = await collect()
      expect(after.sum(METRICS.consumed)).toBe(sent1 + sent2)
      expect(after.sum(METRICS.sockets, (x) => x['solver_notifications.socket.status'] === 'open')).toBe(1)
      b.stop()
    } finally {
      await one.stop()
      await two.stop()
    }
  })

  it('a stream released while blind leaves no gap open: subscribing again records no gap', async () => {
    const { emit, client } = fakeClient()
    const { stop } = instrumentNotifications(client, { meterProvider })
    // 500 streams drop and are released while blind; 500 new ones of the same accounts backfill whole.
    for (let i = 0; i < 500; i++) {
      const released = {}
      emit({ type: 'gap', protocol: 'rasa', stream: `42161:beta:${i}`, instance: released })
      emit({ type: 'streamEnd', instance: released })
    }
    for (let i = 0; i < 500; i++) {
      emit({ type: 'backfill', phase: 'start', id: 10_000 + i, protocol: 'rasa', destination: '42161.beta', stream: `42161:beta:${i}`, instance: {}, since: 0, poll: false })
      emit({ type: 'backfill', phase: 'end', id: 10_000 + i, outcome: 'finished', rows: 0, pages: 1, recovered: 0, whole: true })
    }
    // One real gap: it is measured.
    const dropped = {}
    emit({ type: 'gap', protocol: 'rasa', stream: '42161:beta:x', instance: dropped })
    emit({ type: 'backfill', phase: 'start', id: 20_000, protocol: 'rasa', destination: '42161.beta', stream: '42161:beta:x', instance: dropped, since: 0, poll: false })
    emit({ type: 'backfill', phase: 'end', id: 20_000, outcome: 'finished', rows: 0, pages: 1, recovered: 0, whole: true })
    const { sum } = await collect()
    expect(sum(METRICS.gapDuration)).toBe(1)
    expect(sum(METRICS.backfillDuration)).toBe(501)
    stop()
  })

  it('a real client: a resume stream released while reconnecting, then subscribed again, records no gap', async () => {
    const live = await startLive({ reconnect: { baseDelayMs: 20, maxDelayMs: 40 } })
    try {
      const { stop } = instrumentNotifications(live.client, { meterProvider })
      const a = record(live.client.events({ account: accounts[2], solverId: 'beta' }, { resume: true }))
      await a.until((v) => v.some((e) => e.type === 'status' && e.backfill?.state === 'finished'))
      live.rasa.refuseSockets()
      await live.rasa.dropAll(1012)
      await a.until((v) => v.some((e) => e.type === 'status' && e.status === 'reconnecting'))
      a.subscription.unsubscribe()
      live.rasa.refuseSockets(false)
      const b = record(live.client.events({ account: accounts[2], solverId: 'beta' }, { resume: true }))
      await b.until((v) => v.some((e) => e.type === 'status' && e.status === 'open') && v.some((e) => e.type === 'status' && e.backfill?.state === 'finished'))
      const { sum } = await collect()
      expect(sum(METRICS.backfillDuration)).toBeGreaterThanOrEqual(2)
      expect(sum(METRICS.gapDuration)).toBe(0)
      b.subscription.unsubscribe()
      stop()
    } finally {
      await live.stop()
    }
  })
})
