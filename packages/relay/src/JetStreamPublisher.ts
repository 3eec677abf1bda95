import { type Msg, type MsgHdrs, type NatsConnection, type Subscription, createInbox, headers } from '@nats-io/nats-core'

/**
 * Why a publish was not stored, as a bounded set (a metric label): NATS refused the subject to this
 * relay's user (`permission`), the stream is full and discards new messages (`stream-full`), no stream
 * captures the subject (`no-stream`), JetStream refused it otherwise (`refused`), no acknowledgement in
 * time (`timeout`), the connection closed or drains (`closed`).
 */
export type PublishCause = 'permission' | 'stream-full' | 'no-stream' | 'refused' | 'timeout' | 'closed'

/** A publish JetStream did not store: the message names the cause as NATS gave it. */
export class PublishError extends Error {
  constructor(
    message: string,
    readonly kind: PublishCause,
  ) {
    super(message)
  }
}

/** What a publish ended with: JetStream's acknowledgement, or why there is none (then it is retried). */
export type PublishDone = (error: PublishError | undefined, duplicate: boolean) => void

interface Waiting {
  done: PublishDone
  /** when it was sent, for the timeout sweep */
  at: number
  /** its subject: a permission error names the subject, not the message */
  subject: string
}

/** The cause of a refusal JetStream gave in its acknowledgement. */
function causeOf(description: string): PublishCause {
  if (/maximum (messages|bytes)|max.*exceeded|discard/i.test(description)) return 'stream-full'
  if (/no (stream|responders)|not found/i.test(description)) return 'no-stream'
  return 'refused'
}

/**
 * Publishes into JetStream with every acknowledgement arriving on one subscription (`<inbox>.<n>`),
 * and one timer sweeping the late ones, instead of a request per message (a reply subscription
 * entry, a timer and a promise each). Thousands stay in flight; each publish carries `Nats-Msg-Id`.
 */
export class JetStreamPublisher {
  private readonly inbox: string
  private readonly waiting = new Map<number, Waiting>()
  private readonly subscription: Subscription
  private readonly sweeper: ReturnType<typeof setInterval>
  private next = 0

  #closed = false

  constructor(
    private readonly nc: NatsConnection,
    /** an acknowledgement later than this fails the publish (it is retried; the id makes that safe) */
    private readonly timeoutMs = 5_000,
  ) {
    this.inbox = createInbox()
    this.subscription = nc.subscribe(`${this.inbox}.*`, { callback: (_error, msg) => this.acknowledged(msg) })
    this.sweeper = setInterval(() => this.sweep(), Math.min(1_000, timeoutMs))
    this.sweeper.unref?.()
    void this.#permissions()
  }

  /**
   * NATS answers a publish its user may not make with a permission error on the connection, never on
   * the reply subject: without this, such a publish only ever looked like "no acknowledgement in time".
   */
  async #permissions(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (this.#closed) break
      if (status.type !== 'error') continue
      const error = status.error as Error & { operation?: string; subject?: string }
      if (error?.name !== 'PermissionViolationError' && !/permissions violation/i.test(error?.message ?? '')) continue
      if (error.operation !== undefined && error.operation !== 'publish') continue
      for (const [id, w] of this.waiting) {
        if (error.subject !== undefined && error.subject !== w.subject) continue
        this.waiting.delete(id)
        w.done(new PublishError(`NATS refused the publish to ${w.subject}: ${error.message} (give the relay's NATS user publish permission on its subjects)`, 'permission'), false)
      }
    }
  }

  get inFlight(): number {
    return this.waiting.size
  }

  /** Publishes `body` with `Nats-Msg-Id` = `msgId` and the headers `extra` sets; `done` hears how it ended. */
  publish(subject: string, body: string, msgId: string, done: PublishDone, extra?: (h: MsgHdrs) => void): void {
    const id = ++this.next
    const h = headers()
    h.set('Nats-Msg-Id', msgId)
    extra?.(h)
    try {
      this.nc.publish(subject, body, { headers: h, reply: `${this.inbox}.${id}` })
    } catch (error) {
      // Closed or draining: the caller retries (or has let the account go).
      done(new PublishError(`NATS did not take the publish: ${(error as Error)?.message ?? String(error)}`, 'closed'), false)
      return
    }
    this.waiting.set(id, { done, at: Date.now(), subject })
  }

  private acknowledged(msg: Msg): void {
    const subject = msg.subject
    const id = Number(subject.slice(subject.lastIndexOf('.') + 1))
    const waiting = this.waiting.get(id)
    if (!waiting) return // timed out already: it was retried
    this.waiting.delete(id)
    if (msg.headers?.hasError) {
      // 503: no stream captures the subject (deleted?), and the like.
      const description = `${msg.headers.code} ${msg.headers.description || msg.headers.status}`
      waiting.done(new PublishError(`JetStream did not store it: ${description}`, msg.headers.code === 503 ? 'no-stream' : causeOf(description)), false)
      return
    }
    let ack: { error?: { description?: string }; duplicate?: boolean }
    try {
      ack = msg.json()
    } catch {
      waiting.done(new PublishError('JetStream answered with something that is not an acknowledgement', 'refused'), false)
      return
    }
    if (ack.error) {
      const description = ack.error.description ?? JSON.stringify(ack.error)
      waiting.done(new PublishError(`JetStream refused it: ${description}`, causeOf(description)), false)
    } else waiting.done(undefined, ack.duplicate === true)
  }

  private sweep(): void {
    const late = Date.now() - this.timeoutMs
    for (const [id, w] of this.waiting) {
      // Map order is send order: the first one still in time ends the sweep.
      if (w.at > late) break
      this.waiting.delete(id)
      w.done(new PublishError(`no acknowledgement from JetStream within ${this.timeoutMs} ms`, 'timeout'), false)
    }
  }

  /** Stops listening; publishes still waiting fail (their accounts resume from the checkpoint). */
  close(): void {
    this.#closed = true
    clearInterval(this.sweeper)
    this.subscription.unsubscribe()
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const w of waiting) w.done(new PublishError('the relay is closing', 'closed'), false)
  }
}
