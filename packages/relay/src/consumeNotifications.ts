import { AckPolicy, type ConsumerConfig, DeliverPolicy, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { nanos } from '@nats-io/nats-core'
import { type Notification, isAddress } from '@solver-notifications/core'
import { isPlausiblePosition } from '@solver-notifications/core/internal'
import { type Span, type SpanContext, SpanKind, type Tracer, type TracerProvider } from '@opentelemetry/api'
import { Observable } from 'rxjs'
import { z } from 'zod'
import { type NatsTarget, openNats } from './natsConnection.js'
import { RelayError } from './RelayError.js'
import { checkSubjectPrefix } from './relayStorage.js'
import { PROCESS_SPAN, RECEIVED_AT_HEADER, TRACEPARENT_HEADER, parseTraceparent, tracerOf } from './tracing.js'

/**
 * Options of {@link consumeNotifications}.
 *
 * @example
 * const options: ConsumeOptions = { nats: { servers: 'nats://127.0.0.1:4222' }, filter: { solverId: 'beta' }, durable: 'alerts', deliver: 'all' }
 */
export interface ConsumeOptions {
  nats: NatsTarget
  /** the relay's stream (`SOLVER_NOTIFICATIONS`) */
  stream?: string | undefined
  /** the relay's subject prefix (`solver.notifications`) */
  subjectPrefix?: string | undefined
  /** only these: any of chain, solver and account (the subject is filtered by JetStream, not here) */
  filter?: { chainId?: number | undefined; solverId?: string | undefined; account?: string | undefined } | undefined
  /**
   * A durable consumer's name: it remembers what you acknowledged, so after a restart the same name
   * resumes where it stopped (call `ack()` on each; an unacknowledged one comes again after `ackWaitMs`).
   * Without it, an ephemeral consumer that acknowledges what you read itself and is gone when you unsubscribe.
   */
  durable?: string | undefined
  /**
   * Where a new consumer starts: `'new'` (what is published from now: the default), `'all'` (everything
   * the stream holds) or `{ since }` (what was stored from that unix second). A durable that exists resumes instead.
   */
  deliver?: 'new' | 'all' | { since: number } | undefined
  /** a durable's unacknowledged message comes again after this (30,000 ms) */
  ackWaitMs?: number | undefined
  /**
   * opens a CONSUMER span `process <stream>` per message, linked to the relay's publish span
   * (from its `traceparent`); default: the global tracer provider once an SDK registered one
   */
  tracerProvider?: TracerProvider | undefined
}

/**
 * One notification read from the relay's stream.
 *
 * @example
 * for await (const { notification, ack } of consumeNotifications(options)) { await alert(notification); ack() }
 */
export interface ConsumedNotification {
  notification: Notification
  subject: string
  /** the stream sequence: increasing, unique in the stream */
  seq: number
  /** done with it (a durable consumer does not send it again); nothing to do for an ephemeral one */
  ack(): void
  /** the relay's publish span, from the message's `traceparent` (undefined when the relay did not trace) */
  traceContext: SpanContext | undefined
  /**
   * how long ago the relay received its frame (ms, from the message's `Solver-Received-At`), or, for a
   * message without that header, how old the notification is (now less its `modify_time`)
   */
  ageMs: number | undefined
}

/**
 * The notifications of the relay's stream, as an Observable and as an async iterable (with
 * backpressure: the next batch is pulled as you read). `stats()` counts what was delivered and what
 * was skipped as not a valid notification.
 *
 * @example
 * const consumer = consumeNotifications(options); consumer.subscribe(({ notification }) => console.log(notification.status))
 */
export interface NotificationConsumer extends Observable<ConsumedNotification>, AsyncIterable<ConsumedNotification> {
  stats(): { delivered: number; skipped: number }
}

const SUBJECT_TOKEN = /^[-_=a-zA-Z0-9]+$/
/** Read but not acknowledged at most: a slow reader holds this many, JetStream waits for acks before sending more. */
const MAX_ACK_PENDING = 1_024
const nullable = <T extends z.ZodType>(t: T) => t.nullable()
/** What the relay publishes: the normalized notification. Anything else on the subjects is skipped. */
const notificationSchema = z.looseObject({
  type: z.string(),
  phase: z.string(),
  quoteId: z.number(),
  tempQuoteId: nullable(z.number()),
  account: z.string().refine((a) => isAddress(a)),
  lastSeenAction: nullable(z.string()),
  actionStatus: nullable(z.string()),
  modifyTime: nullable(z.number()),
  createTime: nullable(z.number()),
  id: nullable(z.string()),
  protocol: z.string(),
  chainId: z.number().int().positive(),
  solverId: z.string(),
  source: z.enum(['live', 'backfill']),
  raw: z.looseObject({}),
})

/**
 * Reads what the relay publishes: each valid `Notification` of its stream with its subject, sequence
 * and `ack()`, filtered by chain, solver or account. Messages that are not a valid notification are
 * skipped (acknowledged so they do not come again) and counted. Bad options throw a `RelayError` when
 * you subscribe; so does a NATS that does not answer.
 *
 * @example
 * for await (const m of consumeNotifications({ nats: { servers: 'nats://127.0.0.1:4222' }, durable: 'alerts', deliver: 'all' })) {
 *   await notify(m.notification)
 *   m.ack()
 * }
 */
export function consumeNotifications(options: ConsumeOptions): NotificationConsumer {
  const stream = options.stream ?? 'SOLVER_NOTIFICATIONS'
  const subject = filterSubject(checkSubjectPrefix(options.subjectPrefix ?? 'solver.notifications'), options.filter)
  const durable = options.durable
  if (durable !== undefined && (typeof durable !== 'string' || !SUBJECT_TOKEN.test(durable))) {
    throw new RelayError('INVALID_PARAMETERS', `durable must be a consumer name (letters, digits, - _ =), got ${JSON.stringify(durable)}`)
  }
  const deliver = deliverPolicy(options.deliver ?? 'new')
  const ackWaitMs = options.ackWaitMs ?? 30_000
  if (!Number.isInteger(ackWaitMs) || ackWaitMs < 1_000) throw new RelayError('INVALID_PARAMETERS', `ackWaitMs must be at least 1,000 ms, got ${String(ackWaitMs)}`)
  const counts = { delivered: 0, skipped: 0 }

  /** `control.stop()` ends a read that waits for messages (an Observable unsubscribed between two of them). */
  async function* read(control: { stopped: boolean; stop?: () => void } = { stopped: false }): AsyncGenerator<ConsumedNotification> {
    const { nc, owned } = await openNats(options.nats, `solver-notifications consumer${durable ? ` ${durable}` : ''}`)
    let messages: Awaited<ReturnType<Awaited<ReturnType<ReturnType<typeof jetstream>['consumers']['get']>>['consume']>> | undefined
    let ephemeral: string | undefined
    const queue: JsMsg[] = []
    const jsm = await jetstreamManager(nc)
    try {
      const config: Partial<ConsumerConfig> = { filter_subject: subject, ...deliver }
      let name: string
      if (durable) {
        name = durable
        const existing = await jsm.consumers.info(stream, durable).catch(() => undefined)
        if (!existing) await jsm.consumers.add(stream, { ...config, durable_name: durable, ack_policy: AckPolicy.Explicit, ack_wait: nanos(ackWaitMs), max_ack_pending: MAX_ACK_PENDING })
        else if (existing.config.filter_subject !== subject) {
          throw new RelayError('INVALID_PARAMETERS', `The durable consumer ${durable} reads ${existing.config.filter_subject ?? 'everything'}, not ${subject}. Use another durable name for this filter, or delete that consumer.`)
        }
      } else {
        // Gone a minute after this reader stops, even if it never said goodbye.
        const info = await jsm.consumers.add(stream, { ...config, ack_policy: AckPolicy.Explicit, max_ack_pending: MAX_ACK_PENDING, inactive_threshold: nanos(60_000) })
        name = ephemeral = info.name
      }
      const consumer = await jetstream(nc).consumers.get(stream, name)
      // Messages arrive into this queue and leave it as they are read. What was pulled but not read (or
      // read and not acknowledged) when the reader stops comes again after the ack wait: handing it back
      // at once (nak) raced the stopped pull on nats-server 2.9 (sent to it, then lost until the ack wait).
      // Unacknowledged messages are bounded by max_ack_pending, which is this reader's backpressure.
      let wake: (() => void) | undefined
      let ended = false
      const open = await consumer.consume({
        max_messages: 256,
        callback: (m) => {
          queue.push(m)
          wake?.()
        },
      })
      messages = open
      void open.closed().then(() => {
        ended = true
        wake?.()
      })
      control.stop = () => {
        open.stop()
        wake?.()
      }
      if (control.stopped) open.stop()
      for (;;) {
        while (queue.length === 0 && !ended && !control.stopped) await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
        if (control.stopped || queue.length === 0) break
        const m = queue.shift()!
        const item = toConsumed(m, durable !== undefined)
        const tracer = item ? tracerOf(options.tracerProvider) : undefined
        const span = item && tracer ? processSpan(tracer, stream, m.subject, item) : undefined
        if (span && item) {
          const ack = item.ack
          item.ack = () => {
            span.end()
            ack()
          }
        }
        // Not a notification, or read by an ephemeral reader (no resume): acknowledged here.
        if (!item || !durable) m.ack()
        if (!item) {
          counts.skipped++
          continue
        }
        counts.delivered++
        yield item
        // The reader asked for the next one: this one is processed (acknowledged or not).
        if (span?.isRecording()) span.end()
      }
    } catch (error) {
      if (error instanceof RelayError) throw error
      const message = (error as Error)?.message ?? String(error)
      if (/stream not found/i.test(message)) throw new RelayError('JETSTREAM', `There is no stream ${stream}: start a relay first (it creates it), run solver-relay check, or pass the stream option.`, { cause: error })
      throw new RelayError('JETSTREAM', `Reading ${stream} failed: ${message}`, { cause: error })
    } finally {
      messages?.stop()
      if (ephemeral) await jsm.consumers.delete(stream, ephemeral).catch(() => {})
      // Acknowledgements are fire-and-forget: flushed before a connection of ours closes, so a restart resumes after them.
      await nc.flush().catch(() => {})
      if (owned) await nc.close()
    }
  }

  const observable = new Observable<ConsumedNotification>((subscriber) => {
    const control: { stopped: boolean; stop?: () => void } = { stopped: false }
    const iterator = read(control)
    void (async () => {
      try {
        while (!control.stopped) {
          const next = await iterator.next()
          if (next.done) break
          subscriber.next(next.value)
        }
        subscriber.complete()
      } catch (error) {
        subscriber.error(error)
      } finally {
        await iterator.return(undefined)
      }
    })()
    return () => {
      control.stopped = true
      control.stop?.()
    }
  })
  return Object.assign(observable, {
    [Symbol.asyncIterator]: () => read(),
    stats: () => ({ ...counts }),
  }) as NotificationConsumer
}

function toConsumed(m: JsMsg, acks: boolean): ConsumedNotification | undefined {
  let body: unknown
  try {
    body = m.json()
  } catch {
    return undefined
  }
  const parsed = notificationSchema.safeParse(body)
  if (!parsed.success) return undefined
  const notification = parsed.data as unknown as Notification
  const receivedAt = Number(m.headers?.get(RECEIVED_AT_HEADER) || Number.NaN)
  const ageMs = Number.isFinite(receivedAt) ? Date.now() - receivedAt : notification.modifyTime !== null ? Date.now() - notification.modifyTime * 1000 : undefined
  return { notification, subject: m.subject, seq: m.seq, ack: acks ? () => m.ack() : () => {}, traceContext: parseTraceparent(m.headers?.get(TRACEPARENT_HEADER)), ageMs }
}

/** The CONSUMER span of one message, linked to the relay's publish span when the message carries it. */
function processSpan(tracer: Tracer, stream: string, subject: string, item: ConsumedNotification): Span {
  return tracer.startSpan(`${PROCESS_SPAN} ${stream}`, {
    kind: SpanKind.CONSUMER,
    links: item.traceContext ? [{ context: item.traceContext }] : [],
    attributes: { 'messaging.system.name': 'nats', 'messaging.operation.name': PROCESS_SPAN, 'messaging.operation.type': 'process', 'messaging.destination.name': subject, 'messaging.destination.subscription.name': stream },
  })
}

function filterSubject(prefix: string, filter: ConsumeOptions['filter']): string {
  if (filter === undefined) return `${prefix}.>`
  const { chainId, solverId, account } = filter
  if (chainId !== undefined && !(Number.isInteger(chainId) && chainId > 0)) throw new RelayError('INVALID_PARAMETERS', `filter.chainId must be a positive integer, got ${String(chainId)}`)
  if (solverId !== undefined && (typeof solverId !== 'string' || !SUBJECT_TOKEN.test(solverId))) throw new RelayError('INVALID_PARAMETERS', `filter.solverId must be a solver id of the config, got ${JSON.stringify(solverId)}`)
  if (account !== undefined && !isAddress(account)) throw new RelayError('INVALID_PARAMETERS', `filter.account must be a 0x address of 40 hex digits, got ${JSON.stringify(account)}`)
  return `${prefix}.${chainId ?? '*'}.${solverId ?? '*'}.${account?.toLowerCase() ?? '*'}`
}

function deliverPolicy(deliver: NonNullable<ConsumeOptions['deliver']>): Partial<ConsumerConfig> {
  if (deliver === 'new') return { deliver_policy: DeliverPolicy.New }
  if (deliver === 'all') return { deliver_policy: DeliverPolicy.All }
  if (deliver && typeof deliver === 'object' && isPlausiblePosition(deliver.since)) {
    return { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(deliver.since * 1000).toISOString() }
  }
  throw new RelayError('INVALID_PARAMETERS', `deliver must be 'new', 'all' or { since: <unix seconds> }, got ${JSON.stringify(deliver)}; milliseconds? divide by 1000`)
}
