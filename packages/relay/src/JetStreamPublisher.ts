import { type Msg, type NatsConnection, type Subscription, createInbox, headers } from '@nats-io/nats-core'

/** What a publish ended with: JetStream's acknowledgement, or why there is none (then it is retried). */
export type PublishDone = (error: Error | undefined, duplicate: boolean) => void

interface Waiting {
  done: PublishDone
  /** when it was sent, for the timeout sweep */
  at: number
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

  constructor(
    private readonly nc: NatsConnection,
    /** an acknowledgement later than this fails the publish (it is retried; the id makes that safe) */
    private readonly timeoutMs = 5_000,
  ) {
    this.inbox = createInbox()
    this.subscription = nc.subscribe(`${this.inbox}.*`, { callback: (_error, msg) => this.acknowledged(msg) })
    this.sweeper = setInterval(() => this.sweep(), Math.min(1_000, timeoutMs))
    this.sweeper.unref?.()
  }

  get inFlight(): number {
    return this.waiting.size
  }

  publish(subject: string, body: string, msgId: string, done: PublishDone): void {
    const id = ++this.next
    const h = headers()
    h.set('Nats-Msg-Id', msgId)
    try {
      this.nc.publish(subject, body, { headers: h, reply: `${this.inbox}.${id}` })
    } catch (error) {
      // Closed or draining: the caller retries (or has let the account go).
      done(error as Error, false)
      return
    }
    this.waiting.set(id, { done, at: Date.now() })
  }

  private acknowledged(msg: Msg): void {
    const subject = msg.subject
    const id = Number(subject.slice(subject.lastIndexOf('.') + 1))
    const waiting = this.waiting.get(id)
    if (!waiting) return // timed out already: it was retried
    this.waiting.delete(id)
    if (msg.headers?.hasError) {
      // 503: no stream captures the subject (deleted?), and the like.
      waiting.done(new Error(`JetStream did not store it: ${msg.headers.code} ${msg.headers.description || msg.headers.status}`), false)
      return
    }
    let ack: { error?: { description?: string }; duplicate?: boolean }
    try {
      ack = msg.json()
    } catch {
      waiting.done(new Error('JetStream answered with something that is not an acknowledgement'), false)
      return
    }
    if (ack.error) waiting.done(new Error(`JetStream refused it: ${ack.error.description ?? JSON.stringify(ack.error)}`), false)
    else waiting.done(undefined, ack.duplicate === true)
  }

  private sweep(): void {
    const late = Date.now() - this.timeoutMs
    for (const [id, w] of this.waiting) {
      // Map order is send order: the first one still in time ends the sweep.
      if (w.at > late) break
      this.waiting.delete(id)
      w.done(new Error(`no acknowledgement from JetStream within ${this.timeoutMs} ms`), false)
    }
  }

  /** Stops listening; publishes still waiting fail (their accounts resume from the checkpoint). */
  close(): void {
    clearInterval(this.sweeper)
    this.subscription.unsubscribe()
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const w of waiting) w.done(new Error('the relay is closing'), false)
  }
}
