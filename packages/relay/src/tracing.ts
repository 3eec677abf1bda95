import { ProxyTracerProvider, type Span, type SpanContext, SpanKind, type Tracer, type TracerProvider, isSpanContextValid, trace } from '@opentelemetry/api'

/** The header with the ms since the epoch when a notification's frame reached the relay. */
export const RECEIVED_AT_HEADER = 'Solver-Received-At'
/** The W3C trace context header. */
export const TRACEPARENT_HEADER = 'traceparent'
/**
 * The operations of a notification's way through the relay and JetStream (docs/guide/observability.md):
 * spans are named `{operation} {destination}` as the OpenTelemetry messaging conventions name them,
 * `send <subject prefix>` and `process <stream>` (the subject names an account: an attribute, never a name).
 */
export const PUBLISH_SPAN = 'send'
export const PROCESS_SPAN = 'process'
const SCOPE = '@solver-notifications/relay'

/**
 * The tracer to use now: the given provider's, or the global one's once an SDK registered it. Undefined
 * while nothing traces (the global provider is still the no-op): a relay without tracing makes no span,
 * only the `Solver-Received-At` header.
 *
 * @example
 * const tracer = tracerOf(options.tracerProvider)
 */
export function tracerOf(provider: TracerProvider | undefined): Tracer | undefined {
  if (provider) return provider.getTracer(SCOPE)
  const global = trace.getTracerProvider()
  if (global instanceof ProxyTracerProvider && global.getDelegate().constructor.name === 'NoopTracerProvider') return undefined
  return global.getTracer(SCOPE)
}

/**
 * The PRODUCER span of one publish into JetStream, `send <subject prefix>`.
 *
 * @example
 * const span = publishSpan(tracer, 'solver.notifications', 'solver.notifications.1.beta.0xabc…', msgId)
 */
export function publishSpan(tracer: Tracer, prefix: string, subject: string, msgId: string): Span {
  return tracer.startSpan(`${PUBLISH_SPAN} ${prefix}`, {
    kind: SpanKind.PRODUCER,
    attributes: {
      'messaging.system.name': 'nats',
      'messaging.operation.name': PUBLISH_SPAN,
      'messaging.operation.type': 'send',
      'messaging.destination.name': subject,
      'messaging.destination.template': `${prefix}.{chainId}.{solverId}.{account}`,
      'messaging.message.id': msgId,
    },
  })
}

/**
 * A span context as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), or undefined when it is not
 * a valid one (a no-op span).
 *
 * @example
 * traceparentOf(span.spanContext()) // '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
 */
export function traceparentOf(context: SpanContext): string | undefined {
  if (!isSpanContextValid(context)) return undefined
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 1).toString(16).padStart(2, '0')}`
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/**
 * A `traceparent` header read back into a span context (remote), or undefined when it is absent or malformed.
 *
 * @example
 * const producer = parseTraceparent(msg.headers?.get('traceparent'))
 */
export function parseTraceparent(header: string | undefined | null): SpanContext | undefined {
  const m = header ? TRACEPARENT.exec(header.trim()) : null
  if (!m) return undefined
  const context: SpanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: Number.parseInt(m[3]!, 16), isRemote: true }
  return isSpanContextValid(context) ? context : undefined
}
