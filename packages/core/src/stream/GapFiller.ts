import type { Notification } from '../protocol/types.js'
import { ServiceError, isServiceError } from '../errors/ServiceError.js'
import { backoffDelay } from '../transport/backoffDelay.js'
import type { BackfillFetch } from '../search/backfill.js'
import type { Lease } from '../transport/SocketPool.js'
import type { Timers } from '../transport/Timers.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from '../transport/TransportEvent.js'
import { DedupeWindow } from './DedupeWindow.js'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'

/** Where a stream's events go: what the Observable's subscriber is fed from. */
export interface StreamListener {
  notification(notification: Notification): void
  event(event: StatusEvent | Extract<NotificationEvent, { type: 'error' }>): void
  complete(): void
}

export interface GapFillerContext {
  fetch: BackfillFetch
  timers: Timers
  backoff: { baseDelayMs: number; maxDelayMs: number }
  random: () => number
  dedupeWindow: number
}

/** Clock skew allowed between this machine and the solver when nothing has been seen yet (seconds). */
const START_MARGIN_S = 2

/**
 * Wraps a subscriber of a resume stream: keeps a watermark (newest `modify_time` delivered), and after
 * every reconnect backfills what was missed through search, holding live frames meanwhile, then
 * delivers the union once each, in `modify_time` order per quote. A failed backfill is an `error`
 * event, retried with backoff; the live stream never waits on it for longer than one attempt.
 */
export class GapFiller implements Listener, Lease {
  router: Lease['router'] = undefined
  route: Lease['route'] = undefined
  private watermark = Math.floor(Date.now() / 1000) - START_MARGIN_S
  /**
   * Where the next backfill starts: the watermark at the first drop no backfill has covered yet. It stays
   * put through failed or aborted attempts, because live frames delivered meanwhile move the watermark
   * past the gap.
   */
  private since: number | undefined
  private readonly seen: DedupeWindow
  private held: Notification[] | undefined
  private inFlight: AbortController | undefined
  private retry: ReturnType<typeof setTimeout> | undefined
  private failures = 0
  private lastStatus: StatusEvent = { type: 'status', status: 'connecting', attempt: 0 }
  private hasOpened = false
  private dropped = false
  private disposed = false

  constructor(
    private readonly out: StreamListener,
    private readonly ctx: GapFillerContext,
  ) {
    this.seen = new DedupeWindow(ctx.dedupeWindow)
  }

  notification(notification: Notification): void {
    if (this.held) this.held.push(notification)
    else this.deliver(notification)
  }

  event(event: TransportStatusEvent | TransportErrorEvent): void {
    this.out.event(event)
    if (event.type !== 'status') return
    this.lastStatus = event
    if (event.status === 'reconnecting') {
      this.dropped = true
      if (this.hasOpened) this.since ??= this.watermark
      // Keep holding: frames released now would sort before older transitions the next backfill finds.
      this.abort()
    } else if (event.status === 'open') {
      if (this.hasOpened && this.dropped) this.backfill()
      this.hasOpened = true
      this.dropped = false
    } else if (event.status === 'closed') {
      this.abort()
      this.release()
    }
  }

  complete(): void {
    this.release()
    this.dispose()
    this.out.complete()
  }

  /** Release: abort the search, clear the retry timer, deliver nothing more. */
  dispose(): void {
    this.disposed = true
    this.held = undefined
    this.abort()
  }

  /** Stops the running attempt and any pending retry; what is held stays held. */
  private abort(): void {
    this.inFlight?.abort()
    this.inFlight = undefined
    this.retry = this.ctx.timers.clear(this.retry)
  }

  /** Delivers held live frames (in order) and stops holding. */
  private release(): void {
    const held = this.held
    this.held = undefined
    if (held) for (const n of sortByTime(held)) this.deliver(n)
  }

  private backfill(): void {
    if (this.disposed || this.inFlight) return
    const controller = new AbortController()
    this.inFlight = controller
    this.held ??= []
    this.status({ state: 'started' })
    this.ctx.fetch(this.since ?? this.watermark, controller.signal).then(
      (rows) => {
        if (controller.signal.aborted || this.disposed) return
        this.inFlight = undefined
        this.failures = 0
        this.since = undefined
        const held = this.held ?? []
        this.held = undefined
        const fromHistory = new Set(rows)
        let recovered = 0
        for (const n of sortByTime([...rows, ...held])) {
          if (this.deliver(n) && fromHistory.has(n)) recovered++
        }
        this.status({ state: 'finished', recovered })
      },
      (cause: unknown) => {
        if (controller.signal.aborted || this.disposed) return
        this.inFlight = undefined
        this.release()
        const error = isServiceError(cause) ? cause : new ServiceError('NETWORK', `Backfill failed: ${String(cause)}`, { cause })
        this.out.event({ type: 'error', error })
        const delay = backoffDelay(this.failures++, this.ctx.backoff, this.ctx.random)
        this.retry = this.ctx.timers.set(() => {
          this.retry = undefined
          if (this.lastStatus.status === 'open') this.backfill()
        }, delay)
      },
    )
  }

  private status(backfill: StatusEvent['backfill']): void {
    this.out.event({ ...this.lastStatus, backfill })
  }

  /** Delivers `n` unless it is a duplicate or older than its quote's last delivery; returns whether it went out. */
  private deliver(n: Notification): boolean {
    if (this.seen.rejects(n)) return false
    this.seen.remember(n)
    if (n.modifyTime !== null && n.modifyTime > this.watermark) this.watermark = n.modifyTime
    this.out.notification(n)
    return true
  }
}

function sortByTime(list: Notification[]): Notification[] {
  // Stable: equal times keep arrival order; frames without a time go last.
  return list.sort((a, b) => (a.modifyTime ?? Number.POSITIVE_INFINITY) - (b.modifyTime ?? Number.POSITIVE_INFINITY))
}
