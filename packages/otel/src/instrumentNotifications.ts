import { type Attributes, type MeterProvider, type ObservableResult, type Span, SpanKind, SpanStatusCode, type TracerProvider, metrics, trace } from '@opentelemetry/api'
import type { DiagnosticEvent, Notification, NotificationsStreamClient } from '@solver-notifications/core'

/**
 * Options of {@link instrumentNotifications}.
 *
 * @example
 * instrumentNotifications(client, { meterProvider, tracerProvider, notificationSpans: false, notificationHistograms: true })
 */
export interface InstrumentOptions {
  /** where the metrics go (default: the global meter provider of `@opentelemetry/api`) */
  meterProvider?: MeterProvider | undefined
  /** where the spans go (default: the global tracer provider) */
  tracerProvider?: TracerProvider | undefined
  /**
   * one `solver_notifications process` span (CONSUMER) per notification delivered: off by default (a span
   * per frame floods a trace backend)
   */
  notificationSpans?: boolean | undefined
  /**
   * `solver_notifications.delivery.duration` and `solver_notifications.notification.age`, recorded once per
   * notification delivered: on by default. `false` leaves both out (every other metric stays): each record
   * through the OpenTelemetry JS SDK costs about a microsecond of attribute hashing, a third of a frame's
   * whole path, and an SDK view that drops an instrument costs more, not less (docs/guide/observability.md,
   * "What it costs").
   */
  notificationHistograms?: boolean | undefined
}

/**
 * What {@link instrumentNotifications} returns.
 *
 * @example
 * const { stop } = instrumentNotifications(client); stop()
 */
export interface Instrumentation {
  /** removes every listener, instrument callback and open span: nothing is recorded afterwards */
  stop(): void
}

/** The metric names, as OpenTelemetry writes them (docs/guide/observability.md lists them; a test keeps both in step). */
export const METRICS = {
  consumed: 'messaging.client.consumed.messages',
  deliveryDuration: 'solver_notifications.delivery.duration',
  age: 'solver_notifications.notification.age',
  backfillDuration: 'solver_notifications.backfill.duration',
  backfillRecovered: 'solver_notifications.backfill.recovered',
  gapDuration: 'solver_notifications.gap.duration',
  reconnects: 'solver_notifications.socket.reconnects',
  sockets: 'solver_notifications.sockets',
  heartbeatRtt: 'solver_notifications.heartbeat.rtt',
  errors: 'solver_notifications.errors',
} as const

/** The span names. */
export const SPANS = {
  connect: 'solver_notifications connect',
  backfill: 'solver_notifications backfill',
  waitFor: 'solver_notifications waitFor',
  process: 'solver_notifications process',
} as const

const SYSTEM = 'solver_notifications'
const SCOPE = '@solver-notifications/otel'
/** Seconds between the clock's milliseconds and a notification's `modify_time`. */
const plausible = (t: number | null): t is number => typeof t === 'number' && t > 1_000_000_000

/**
 * Puts a client's health on the OpenTelemetry metrics and traces an app already runs: deliveries by
 * source, delivery time (a backfill's hold included) and notification age, backfills, gaps, sockets by
 * status, reconnects, heartbeat round trips and errors (docs/guide/observability.md), and spans per dial,
 * backfill and `waitFor` (per notification only with `notificationSpans`). Attributes are bounded
 * (protocol, source, status, error code: never an account or a quote id), URLs are redacted as in errors.
 * It listens to `client.diagnostics`: an app that never calls it pays nothing.
 *
 * @example
 * import { instrumentNotifications } from '@solver-notifications/otel'
 * const { stop } = instrumentNotifications(client) // the global meter and tracer providers
 */
export function instrumentNotifications(client: Pick<NotificationsStreamClient, 'diagnostics' | 'stats'>, options: InstrumentOptions = {}): Instrumentation {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE)
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE)
  const base = { 'messaging.system': SYSTEM }
  // Counted here and read at each collection (an observable counter): an SDK record costs about a
  // microsecond of attribute hashing, as much again as a frame's whole path; counts need no per-frame record.
  const consumed = meter.createObservableCounter(METRICS.consumed, { unit: '{message}', description: 'Notifications handed to subscribers, live frames (once per frame) or recovered by a backfill or poll (once per stream).' })
  // Not created at all when left out: an instrument without data points still shows up on a dashboard as "no data".
  const perNotification = options.notificationHistograms !== false && {
    deliveryDuration: meter.createHistogram(METRICS.deliveryDuration, { unit: 's', description: 'A frame received (or a history row read) to its delivery; the time a backfill held it included.' }),
    age: meter.createHistogram(METRICS.age, { unit: 's', description: "Delivery time less the notification's modify_time: an old one is a slow solver or a backlog." }),
  }
  const backfillDuration = meter.createHistogram(METRICS.backfillDuration, { unit: 's', description: 'One backfill or poll, asked to finished or failed.' })
  const backfillRecovered = meter.createObservableCounter(METRICS.backfillRecovered, { unit: '{message}', description: 'Notifications a backfill or poll recovered.' })
  const gapDuration = meter.createHistogram(METRICS.gapDuration, { unit: 's', description: 'A resume stream without its socket, until it is whole again (its gap backfilled).' })
  const heartbeatRtt = meter.createHistogram(METRICS.heartbeatRtt, { unit: 's', description: 'Protocol ping to pong, where heartbeats run (Node).' })
  const errors = meter.createCounter(METRICS.errors, { unit: '{error}', description: 'Error events, by their ServiceError code.' })
  const reconnects = meter.createObservableCounter(METRICS.reconnects, { unit: '{reconnect}', description: 'Sockets re-dialed after a drop.' })
  const sockets = meter.createObservableUpDownCounter(METRICS.sockets, { unit: '{socket}', description: 'Sockets by status.' })
  const observeReconnects = (result: ObservableResult) => result.observe(client.stats().reconnects, base)
  const observeSockets = (result: ObservableResult) => {
    const status = client.stats().socketStatus
    for (const s of ['connecting', 'open', 'reconnecting'] as const) result.observe(status[s], { ...base, 'solver_notifications.socket.status': s })
  }
  /** Per attribute set (protocol, then source): one frozen attributes object, and the counts so far (no allocation per frame). */
  type Counted = { attributes: Attributes; consumed: number; recovered: number }
  const byProtocol = new Map<string, Map<string, Counted>>()
  // The last set asked for: frames of one hub come in runs of the same protocol and source.
  let last: { protocol: string; source: string; set: Counted } | undefined
  const setOf = (protocol: string, source: string): Counted => {
    if (last !== undefined && last.protocol === protocol && last.source === source) return last.set
    let sources = byProtocol.get(protocol)
    if (!sources) byProtocol.set(protocol, (sources = new Map()))
    let set = sources.get(source)
    if (!set) sources.set(source, (set = { attributes: Object.freeze({ ...base, 'solver_notifications.protocol': protocol, 'solver_notifications.source': source }), consumed: 0, recovered: 0 }))
    last = { protocol, source, set }
    return set
  }
  const each = (visit: (set: Counted) => void) => {
    for (const sources of byProtocol.values()) for (const set of sources.values()) visit(set)
  }
  const observeConsumed = (result: ObservableResult) => each((set) => set.consumed > 0 && result.observe(set.consumed, set.attributes))
  const observeRecovered = (result: ObservableResult) => each((set) => set.recovered > 0 && result.observe(set.recovered, set.attributes))
  reconnects.addCallback(observeReconnects)
  sockets.addCallback(observeSockets)
  consumed.addCallback(observeConsumed)
  backfillRecovered.addCallback(observeRecovered)

  /** Live frames a resume stream holds: their arrival, until the first stream releases them. */
  const held = new WeakSet<Notification>()
  const pending = new WeakMap<Notification, { at: number; protocol: string }>()
  /** Open spans: dials by socket, backfills and waits by id (ended, or ended by `stop`). */
  const dials = new Map<number, Span>()
  const backfills = new Map<number, { span: Span; at: number; attributes: Attributes; stream: string }>()
  const waits = new Map<number, Span>()
  /** When each resume stream lost its socket (the first drop of an outage), until it is whole again. */
  const gaps = new Map<string, number>()

  /** `since`: when the frame arrived or its history row was read (the clock is read only for a histogram). */
  const delivered = (n: Notification, source: 'live' | 'backfill' | 'poll', since: number) => {
    const set = setOf(n.protocol, source)
    set.consumed++
    if (source !== 'live') set.recovered++
    const attributes = set.attributes
    if (perNotification) {
      perNotification.deliveryDuration.record(Math.max(0, performance.now() - since) / 1000, attributes)
      if (plausible(n.modifyTime)) perNotification.age.record(Math.max(0, Date.now() / 1000 - n.modifyTime), attributes)
    }
    if (options.notificationSpans) {
      tracer
        .startSpan(SPANS.process, { kind: SpanKind.CONSUMER, attributes: { ...attributes, 'messaging.operation.type': 'process', 'messaging.destination.name': `${n.chainId}.${n.solverId}` } })
        .end()
    }
  }

  const listener = (e: DiagnosticEvent): void => {
    switch (e.type) {
      case 'frame':
        if (held.has(e.notification)) pending.set(e.notification, { at: e.at, protocol: e.notification.protocol })
        else delivered(e.notification, 'live', e.at)
        return
      case 'held':
        held.add(e.notification)
        return
      case 'released': {
        const p = pending.get(e.notification)
        if (!p) return
        pending.delete(e.notification)
        held.delete(e.notification)
        delivered(e.notification, 'live', p.at)
        return
      }
      case 'recovered':
        delivered(e.notification, e.source, e.readAt)
        return
      case 'socket':
        onSocket(e)
        return
      case 'heartbeat':
        heartbeatRtt.record(e.rttMs / 1000, { ...base, 'solver_notifications.protocol': e.protocol })
        return
      case 'backfill':
        if (e.phase === 'start') {
          const attributes = { ...base, 'solver_notifications.protocol': e.protocol, 'solver_notifications.source': e.poll ? 'poll' : 'backfill' }
          backfills.set(e.id, { span: tracer.startSpan(SPANS.backfill, { kind: SpanKind.CLIENT, attributes }), at: performance.now(), attributes, stream: e.stream })
          return
        }
        onBackfillEnd(e)
        return
      case 'gap':
        if (!gaps.has(e.stream)) gaps.set(e.stream, performance.now())
        return
      case 'waitFor':
        if (e.phase === 'start') {
          waits.set(e.id, tracer.startSpan(SPANS.waitFor, { kind: SpanKind.INTERNAL, attributes: { ...base, 'solver_notifications.protocol': e.protocol } }))
          return
        }
        end(waits, e.id, { 'solver_notifications.outcome': e.outcome }, e.outcome === 'reached' ? undefined : (e.errorCode ?? e.outcome))
        return
      case 'error':
        errors.add(1, { ...base, 'error.type': e.code, ...(e.protocol ? { 'solver_notifications.protocol': e.protocol } : {}) })
        return
      default:
        return
    }
  }

  const onSocket = (e: Extract<DiagnosticEvent, { type: 'socket' }>) => {
    const { status, attempt, closeCode, closeReason } = e.event
    const open = dials.get(e.socket)
    if (status === 'connecting') {
      // A dial left open (the socket went idle) ends as abandoned.
      if (open) end(dials, e.socket, { 'solver_notifications.outcome': 'abandoned' }, 'abandoned')
      dials.set(e.socket, tracer.startSpan(SPANS.connect, { kind: SpanKind.CLIENT, attributes: { ...base, 'server.address': hostOf(e.url), 'solver_notifications.protocol': e.protocol, 'solver_notifications.attempt': attempt } }))
      return
    }
    if (!open) return
    if (status === 'open') end(dials, e.socket, { 'solver_notifications.outcome': 'open' })
    else end(dials, e.socket, { 'solver_notifications.outcome': 'failed', ...(closeCode !== undefined ? { 'solver_notifications.close.code': closeCode } : {}) }, closeReason ?? status)
  }

  const onBackfillEnd = (e: Extract<DiagnosticEvent, { type: 'backfill'; phase: 'end' }>) => {
    const run = backfills.get(e.id)
    if (!run) return
    backfillDuration.record((performance.now() - run.at) / 1000, { ...run.attributes, 'solver_notifications.outcome': e.outcome })
    run.span.setAttributes({ 'solver_notifications.rows': e.rows, 'solver_notifications.pages': e.pages, 'solver_notifications.recovered': e.recovered, 'solver_notifications.outcome': e.outcome })
    end(backfills as unknown as Map<number, Span>, e.id, {}, e.outcome === 'failed' ? (e.errorCode ?? 'failed') : undefined, run.span)
    // Whole again: the stream's gap closes.
    const since = gaps.get(run.stream)
    if (e.whole && since !== undefined) {
      gaps.delete(run.stream)
      gapDuration.record((performance.now() - since) / 1000, { ...base, 'solver_notifications.protocol': String(run.attributes['solver_notifications.protocol']) })
    }
  }

  /** Ends an open span (an error status with `error`), and forgets it. */
  const end = (open: Map<number, Span>, id: number, attributes: Attributes, error?: string, span = open.get(id)) => {
    if (!span) return
    open.delete(id)
    span.setAttributes(attributes)
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error })
    span.end()
  }

  const unsubscribe = client.diagnostics.subscribe(listener)
  return {
    stop() {
      unsubscribe()
      reconnects.removeCallback(observeReconnects)
      sockets.removeCallback(observeSockets)
      consumed.removeCallback(observeConsumed)
      backfillRecovered.removeCallback(observeRecovered)
      for (const span of dials.values()) span.end()
      for (const run of backfills.values()) run.span.end()
      for (const span of waits.values()) span.end()
      dials.clear()
      backfills.clear()
      waits.clear()
      gaps.clear()
    },
  }
}

/** The host a (redacted) URL names, for `server.address`: never its path or query. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname
  } catch {
    return 'unknown'
  }
}
