import { type Attributes, type Meter, type MeterProvider, type Span, SpanKind, SpanStatusCode, type TracerProvider, metrics, trace } from '@opentelemetry/api'
import type { DiagnosticEvent, Notification, NotificationsStreamClient } from '@solver-notifications/core'
import { type Counted, joinShared } from './sharedCounts.js'

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
   * one `process <chainId>.<solverId>` span (CONSUMER) per notification delivered: off by default (a span
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
  operationDuration: 'messaging.client.operation.duration',
  deliveryDuration: 'solver_notifications.delivery.duration',
  age: 'solver_notifications.notification.age',
  backfillDuration: 'solver_notifications.backfill.duration',
  backfillRecovered: 'solver_notifications.backfill.recovered',
  gapDuration: 'solver_notifications.gap.duration',
  reconnects: 'solver_notifications.socket.reconnects',
  sockets: 'solver_notifications.sockets',
  heartbeatRtt: 'solver_notifications.heartbeat.rtt',
  errors: 'solver_notifications.errors',
  silentLosses: 'solver_notifications.silent_losses',
  streams: 'solver_notifications.streams',
} as const

/**
 * The operation each span is named after: a span's name is `{operation} {destination}`, as the
 * OpenTelemetry messaging conventions name spans, the destination being `<chainId>.<solverId>` (never an
 * account): `process 42161.beta`.
 */
export const SPANS = {
  connect: 'connect',
  backfill: 'backfill',
  search: 'search',
  waitFor: 'waitFor',
  process: 'process',
} as const

/**
 * The explicit bucket boundaries (seconds) of each histogram, given as the instrument's advice so an app's
 * own View still wins: the messaging conventions' advice for durations, extended upwards where a figure
 * can be minutes (an age behind a backlog, a gap, a backfill of a long outage).
 *
 * @example
 * new View({ instrumentName: METRICS.age, aggregation: { type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM, options: { boundaries: BUCKETS.long } } })
 */
export const BUCKETS = {
  /** round trips, deliveries and requests: 5 ms to 10 s (the conventions' advice), then to a minute */
  short: Object.freeze([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 30, 60]),
  /** ages, gaps and backfills: the same, then up to an hour */
  long: Object.freeze([0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600]),
} as const

const SYSTEM = 'solver_notifications'
const SCOPE = '@solver-notifications/otel'
/** Seconds between the clock's milliseconds and a notification's `modify_time`. */
const plausible = (t: number | null): t is number => typeof t === 'number' && t > 1_000_000_000
const histogram = (meter: Meter, name: string, description: string, boundaries: readonly number[]) =>
  meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: [...boundaries] } })

/**
 * Puts a client's health on the OpenTelemetry metrics and traces an app already runs: deliveries by
 * source, delivery time (a backfill's hold included) and notification age, backfills, gaps, sockets by
 * status, reconnects, heartbeat round trips, searches and errors (docs/guide/observability.md), and spans
 * per dial, backfill, search and `waitFor` (per notification only with `notificationSpans`), named and
 * attributed by the OpenTelemetry messaging conventions. Attributes are bounded (protocol, source, status,
 * `<chainId>.<solverId>`, error code: never an account or a quote id), URLs are redacted as in errors.
 * Several clients instrumented on one meter provider add up. It listens to `client.diagnostics`: an app
 * that never calls it pays nothing.
 *
 * @example
 * import { instrumentNotifications } from '@solver-notifications/otel'
 * const { stop } = instrumentNotifications(client) // the global meter and tracer providers
 */
export function instrumentNotifications(client: Pick<NotificationsStreamClient, 'diagnostics' | 'stats'>, options: InstrumentOptions = {}): Instrumentation {
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE)
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE)
  const base = { 'messaging.system.name': SYSTEM }
  // Histograms of one name on one meter share their data: two clients' records add up by themselves.
  // Not created at all when left out: an instrument without data points still shows up on a dashboard as "no data".
  const perNotification = options.notificationHistograms !== false && {
    deliveryDuration: histogram(meter, METRICS.deliveryDuration, 'A frame received (or a history row read) to its delivery; the time a backfill held it included.', BUCKETS.short),
    age: histogram(meter, METRICS.age, "Delivery time less the notification's modify_time: an old one is a slow solver or a backlog.", BUCKETS.long),
  }
  const backfillDuration = histogram(meter, METRICS.backfillDuration, 'One backfill or poll, asked to finished or failed.', BUCKETS.long)
  const gapDuration = histogram(meter, METRICS.gapDuration, 'A resume stream without its socket, until it is whole again (its gap backfilled).', BUCKETS.long)
  const heartbeatRtt = histogram(meter, METRICS.heartbeatRtt, 'Protocol ping to pong, where heartbeats run (Node).', BUCKETS.short)
  const operationDuration = histogram(meter, METRICS.operationDuration, 'A history search the app asked for (client.search, a searchPages walk), by outcome: error.type on a failure.', BUCKETS.short)
  const errors = meter.createCounter(METRICS.errors, { unit: '{error}', description: 'Error events, by their ServiceError code, and failed searches.' })
  const silentLosses = meter.createCounter(METRICS.silentLosses, { unit: '{notification}', description: 'Notifications a verification found that an open socket never brought (docs/guide/continuity.md).' })

  // Counted here and read at each collection (observable counters): an SDK record costs about a
  // microsecond of attribute hashing, as much again as a frame's whole path; counts need no per-frame record.
  const sets = new Map<string, Counted>()
  // The last set asked for: frames of one hub come in runs of the same protocol, source and solver.
  let last: { protocol: string; source: string; chainId: number; solverId: string; set: Counted } | undefined
  const setOf = (protocol: string, source: string, chainId: number, solverId: string): Counted => {
    if (last !== undefined && last.protocol === protocol && last.source === source && last.chainId === chainId && last.solverId === solverId) return last.set
    const destination = `${chainId}.${solverId}`
    const key = `${protocol}\u0000${source}\u0000${destination}`
    let set = sets.get(key)
    if (!set) {
      const attributes = Object.freeze({
        ...base,
        'messaging.operation.name': source === 'live' ? 'process' : 'receive',
        'messaging.destination.name': destination,
        'solver_notifications.protocol': protocol,
        'solver_notifications.source': source,
      })
      const recorded = Object.freeze({ ...base, 'solver_notifications.protocol': protocol, 'solver_notifications.source': source })
      sets.set(key, (set = { key, attributes, recorded, consumed: 0, recovered: 0 }))
    }
    last = { protocol, source, chainId, solverId, set }
    return set
  }
  /** Each resume stream's continuity state, by its instance, as its last change said (until it ends). */
  const continuities = new Map<object, 'complete' | 'catching-up' | 'incomplete'>()
  const leave = joinShared(meter, { consumed: METRICS.consumed, recovered: METRICS.backfillRecovered, reconnects: METRICS.reconnects, sockets: METRICS.sockets, streams: METRICS.streams }, base, {
    sets: { [Symbol.iterator]: () => sets.values() },
    reconnects: () => client.stats().reconnects,
    sockets: () => client.stats().socketStatus,
    streams: () => {
      const counts = { complete: 0, 'catching-up': 0, incomplete: 0 }
      for (const state of continuities.values()) counts[state]++
      return counts
    },
  })

  /** Live frames a resume stream holds: their arrival, until the first stream releases them. */
  const held = new WeakSet<Notification>()
  const pending = new WeakMap<Notification, { at: number; protocol: string }>()
  /** Open spans: dials by socket, backfills, searches and waits by id (ended, or ended by `stop`). */
  const dials = new Map<number, { span: Span; cause?: string | undefined }>()
  const backfills = new Map<number, { span: Span; at: number; attributes: Attributes; instance: object }>()
  const searches = new Map<number, { span: Span; at: number; attributes: Attributes }>()
  const waits = new Map<number, Span>()
  /** When each resume stream (by its instance) lost its socket (the first drop of an outage), until it is whole again or ends. */
  const gaps = new Map<object, number>()

  /** `since`: when the frame arrived or its history row was read (the clock is read only for a histogram). */
  const delivered = (n: Notification, source: 'live' | 'backfill' | 'poll', since: number) => {
    const set = setOf(n.protocol, source, n.chainId, n.solverId)
    set.consumed++
    if (source !== 'live') set.recovered++
    if (perNotification) {
      // Three attributes, not the counter's five: the SDK hashes them on every record (docs/guide/observability.md, "What it costs").
      const attributes = set.recorded!
      perNotification.deliveryDuration.record(Math.max(0, performance.now() - since) / 1000, attributes)
      if (plausible(n.modifyTime)) perNotification.age.record(Math.max(0, Date.now() / 1000 - n.modifyTime), attributes)
    }
    if (options.notificationSpans) {
      tracer
        .startSpan(`${SPANS.process} ${n.chainId}.${n.solverId}`, { kind: SpanKind.CONSUMER, attributes: { ...set.attributes, 'messaging.operation.type': 'process' } })
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
          const span = tracer.startSpan(`${SPANS.backfill} ${e.destination}`, {
            kind: SpanKind.CLIENT,
            attributes: { ...attributes, 'messaging.operation.name': SPANS.backfill, 'messaging.operation.type': 'receive', 'messaging.destination.name': e.destination },
          })
          backfills.set(e.id, { span, at: performance.now(), attributes, instance: e.instance })
          return
        }
        onBackfillEnd(e)
        return
      case 'gap':
        if (!gaps.has(e.instance)) gaps.set(e.instance, performance.now())
        return
      case 'streamEnd':
        gaps.delete(e.instance)
        continuities.delete(e.instance)
        return
      case 'continuity':
        continuities.set(e.instance, e.state)
        return
      case 'silentLoss':
        silentLosses.add(e.count, { ...base, 'solver_notifications.protocol': e.protocol, 'messaging.destination.name': e.destination })
        return
      case 'search':
        onSearch(e)
        return
      case 'waitFor':
        if (e.phase === 'start') {
          waits.set(e.id, tracer.startSpan(`${SPANS.waitFor} ${e.destination}`, { kind: SpanKind.INTERNAL, attributes: { ...base, 'solver_notifications.protocol': e.protocol } }))
          return
        }
        end(waits.get(e.id), { 'solver_notifications.outcome': e.outcome }, e.outcome === 'reached' ? undefined : (e.errorCode ?? e.outcome))
        waits.delete(e.id)
        return
      case 'error': {
        errors.add(1, { ...base, 'error.type': e.code, ...(e.protocol ? { 'solver_notifications.protocol': e.protocol } : {}) })
        // The cause of a dial's failure, for its span (the close that follows says only 1006).
        const dial = e.socket === undefined ? undefined : dials.get(e.socket)
        const cause = codeOf(e.cause)
        if (dial && cause) dial.cause = cause
        return
      }
      default:
        return
    }
  }

  const onSocket = (e: Extract<DiagnosticEvent, { type: 'socket' }>) => {
    const { status, attempt, closeCode, closeReason } = e.event
    const open = dials.get(e.socket)
    if (status === 'connecting') {
      // A dial left open (the socket went idle) ends as abandoned.
      if (open) end(open.span, { 'solver_notifications.outcome': 'abandoned' }, 'abandoned')
      const span = tracer.startSpan(`${SPANS.connect} ${e.destination}`, {
        kind: SpanKind.CLIENT,
        attributes: { ...base, 'server.address': hostOf(e.url), 'messaging.destination.name': e.destination, 'solver_notifications.protocol': e.protocol, 'solver_notifications.attempt': attempt },
      })
      dials.set(e.socket, { span })
      return
    }
    if (!open) return
    dials.delete(e.socket)
    if (status === 'open') {
      end(open.span, { 'solver_notifications.outcome': 'open' })
      return
    }
    const why = dialFailure(open.cause, closeCode, closeReason, status)
    end(open.span, { 'solver_notifications.outcome': 'failed', 'error.type': why.type, ...(closeCode !== undefined ? { 'solver_notifications.close.code': closeCode } : {}) }, why.message)
  }

  const onBackfillEnd = (e: Extract<DiagnosticEvent, { type: 'backfill'; phase: 'end' }>) => {
    const run = backfills.get(e.id)
    if (!run) return
    backfills.delete(e.id)
    backfillDuration.record((performance.now() - run.at) / 1000, { ...run.attributes, 'solver_notifications.outcome': e.outcome })
    const failed = e.outcome === 'failed'
    end(
      run.span,
      { 'solver_notifications.rows': e.rows, 'solver_notifications.pages': e.pages, 'solver_notifications.recovered': e.recovered, 'solver_notifications.outcome': e.outcome, ...(failed ? { 'error.type': e.errorCode ?? 'failed' } : {}) },
      failed ? (e.errorCode ?? 'failed') : undefined,
    )
    // Whole again: the stream's gap closes.
    const since = gaps.get(run.instance)
    if (e.whole && since !== undefined) {
      gaps.delete(run.instance)
      gapDuration.record((performance.now() - since) / 1000, { ...base, 'solver_notifications.protocol': String(run.attributes['solver_notifications.protocol']) })
    }
  }

  const onSearch = (e: Extract<DiagnosticEvent, { type: 'search' }>) => {
    if (e.phase === 'start') {
      const attributes = { ...base, 'messaging.operation.name': SPANS.search, 'messaging.operation.type': 'receive', 'messaging.destination.name': e.destination, 'solver_notifications.protocol': e.protocol }
      const span = tracer.startSpan(`${SPANS.search} ${e.destination}`, { kind: SpanKind.CLIENT, attributes: { ...attributes, 'server.address': hostOf(e.url) } })
      searches.set(e.id, { span, at: performance.now(), attributes })
      return
    }
    const run = searches.get(e.id)
    if (!run) return
    searches.delete(e.id)
    const failure = e.outcome === 'failed' ? { 'error.type': e.errorCode ?? 'UNKNOWN', ...(e.status !== undefined ? { 'http.response.status_code': e.status } : {}) } : undefined
    operationDuration.record((performance.now() - run.at) / 1000, failure ? { ...run.attributes, 'error.type': failure['error.type'] } : run.attributes)
    if (failure) errors.add(1, { ...base, 'error.type': failure['error.type'], 'messaging.operation.name': SPANS.search, 'solver_notifications.protocol': String(run.attributes['solver_notifications.protocol']) })
    end(run.span, failure ?? {}, failure ? `${failure['error.type']}${e.status !== undefined ? ` (HTTP ${e.status})` : ''}` : undefined)
  }

  /** Ends an open span (an error status with `error`). */
  const end = (span: Span | undefined, attributes: Attributes, error?: string) => {
    if (!span) return
    span.setAttributes(attributes)
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error })
    span.end()
  }

  const unsubscribe = client.diagnostics.subscribe(listener)
  let stopped = false
  return {
    stop() {
      if (stopped) return
      stopped = true
      unsubscribe()
      leave()
      for (const dial of dials.values()) dial.span.end()
      for (const run of backfills.values()) run.span.end()
      for (const run of searches.values()) run.span.end()
      for (const span of waits.values()) span.end()
      dials.clear()
      backfills.clear()
      searches.clear()
      waits.clear()
      gaps.clear()
    },
  }
}

/** The runtime's code of a failure under a transport error (Node's `ECONNREFUSED`, a TLS code), if it has one. */
function codeOf(cause: unknown): string | undefined {
  const code = (cause as { code?: unknown } | undefined)?.code ?? (cause as { cause?: { code?: unknown } } | undefined)?.cause?.code
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? code : undefined
}

/** What a close code means, for a failed dial's span (RFC 6455 and the codes solvers use). */
const CLOSE_MEANINGS: Readonly<Record<number, string>> = {
  1000: 'normal closure',
  1001: 'going away',
  1002: 'protocol error',
  1003: 'unsupported data',
  1006: 'abnormal closure: no close frame (the connection dropped or never opened)',
  1007: 'invalid payload',
  1008: 'policy violation',
  1009: 'message too big',
  1011: 'server error',
  1012: 'service restart',
  1013: 'try again later',
  1015: 'TLS handshake failed',
  4001: 'unauthorized',
  4003: 'forbidden',
}

/**
 * Why a dial failed, as a span's error: the runtime's cause when it said one (`ECONNREFUSED`, DNS, TLS),
 * else the close code with its meaning and the server's (redacted) reason. Never just "reconnecting".
 */
function dialFailure(cause: string | undefined, closeCode: number | undefined, closeReason: string | undefined, status: string): { type: string; message: string } {
  if (cause) {
    const kind = /^(ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME)$/.test(cause)
      ? 'DNS lookup failed'
      : /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME|ALTNAME/.test(cause)
        ? 'TLS failed'
        : cause === 'ECONNREFUSED'
          ? 'connection refused'
          : cause === 'ETIMEDOUT'
            ? 'connection timed out'
            : cause === 'ECONNRESET'
              ? 'connection reset'
              : 'socket error'
    return { type: cause, message: `${kind} (${cause})${closeCode !== undefined ? `, close ${closeCode}` : ''}` }
  }
  if (closeCode !== undefined) {
    const meaning = CLOSE_MEANINGS[closeCode] ?? (closeCode >= 4000 ? "the server's own code" : 'unknown code')
    return { type: String(closeCode), message: `close ${closeCode} (${meaning})${closeReason ? `: ${closeReason}` : ''}` }
  }
  return { type: closeReason ? 'closed' : status, message: closeReason ?? status }
}

/** The host a (redacted) URL names, for `server.address`: never its path or query. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname
  } catch {
    return 'unknown'
  }
}
