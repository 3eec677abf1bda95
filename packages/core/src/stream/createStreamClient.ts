import { Observable, type Subscriber, distinctUntilChanged } from 'rxjs'
import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'
import type { BackfillFetch } from '../search/backfill.js'
import { SocketPool } from '../transport/SocketPool.js'
import type { Listener, SocketStatus, TransportEvent } from '../transport/TransportEvent.js'
import { createTransportStats } from '../transport/TransportStats.js'
import { type Address, assertAddress } from '../utils/address.js'
import type { ClientStats } from './ClientStats.js'
import { type NotificationsClientOptions, resolveClientOptions } from './clientOptions.js'
import { GapFiller, type StreamListener } from './GapFiller.js'
import type { NotificationEvent } from './NotificationEvent.js'

/**
 * Which account of which solver a live stream follows; chain and solver default from the config.
 *
 * @example
 * const params: StreamParams = { account: '0x1111111111111111111111111111111111111111', solverId: 'beta' }
 */
export interface StreamParams<C extends NotificationsConfigInput = NotificationsConfigInput> {
  account: Address
  chainId?: number | undefined
  solverId?: SolverId<C> | undefined
}

/**
 * Per-stream options. `resume: true` makes the stream gap-free: after every reconnect it backfills
 * what changed while it was down through search and delivers each notification once, in
 * `modify_time` order per quote (backfilled ones with `source: 'backfill'`).
 *
 * @example
 * client.notifications({ account }, { resume: true, maxBackfillRows: 500 })
 */
export interface StreamOptions {
  resume?: boolean | undefined
  /** cap on rows read per backfill (1,000) */
  maxBackfillRows?: number | undefined
  /** how many recent notifications de-duplication remembers (2,048) */
  dedupeWindow?: number | undefined
}

/**
 * The live half of the client: Observables over a shared socket pool, stats and close.
 *
 * @example
 * const sub = client.notifications({ account }).subscribe((n) => console.log(n.type))
 */
export interface NotificationsStreamClient<C extends NotificationsConfigInput = NotificationsConfigInput> {
  readonly config: NotificationsConfig<C>
  /** Notifications, status changes and errors of one account; never errors, completes on `close()`. */
  events(params: StreamParams<C>, options?: StreamOptions): Observable<NotificationEvent>
  /** The notifications of one account (a view of `events`). */
  notifications(params: StreamParams<C>, options?: StreamOptions): Observable<Notification>
  /** The socket status of one account: the current value first, then changes (a view of `events`). */
  status(params: StreamParams<C>): Observable<SocketStatus>
  stats(): ClientStats
  /** Closes every socket; open streams emit status `closed` and complete. */
  close(): void
}

/** How a view picks its values out of a stream's events. */
type Select<T> = (event: NotificationEvent, subscriber: Subscriber<T>) => void

const allEvents: Select<NotificationEvent> = (event, subscriber) => subscriber.next(event)
const notificationsOnly: Select<Notification> = (event, subscriber) => {
  if (event.type === 'notification') subscriber.next(event.notification)
}
const statusOnly: Select<SocketStatus> = (event, subscriber) => {
  if (event.type === 'status') subscriber.next(event.status)
}

/** Feeds one Observable subscriber; one small object per subscription keeps an idle one cheap (SPEC §10 B4, P1). */
class SubscriberListener<T> implements Listener, StreamListener {
  constructor(
    private readonly subscriber: Subscriber<T>,
    private readonly select: Select<T>,
  ) {}
  event(event: TransportEvent | NotificationEvent): void {
    this.select(event, this.subscriber)
  }
  complete(): void {
    this.subscriber.complete()
  }
}

/**
 * Creates the live client over one shared, reconnecting, multiplexing socket pool. Bad parameters
 * throw a `ServiceError` at the call; streams themselves never error.
 *
 * @example
 * const client = createStreamClient({ config })
 * client.notifications({ account: '0x1111111111111111111111111111111111111111' }).subscribe(console.log)
 */
export function createStreamClient<C extends NotificationsConfigInput>(
  options: NotificationsClientOptions<C>,
  backfillFor?: (solver: ResolvedSolver, account: Address, maxRows: number) => BackfillFetch,
): NotificationsStreamClient<C> {
  const resolved = resolveClientOptions(options)
  const stats = createTransportStats()
  const pool = new SocketPool(resolved, stats)
  const { config } = options

  const stream = <T>(params: StreamParams<C>, select: Select<T>, streamOptions?: StreamOptions): Observable<T> => {
    assertAddress(params?.account)
    const account = params.account
    // Resolved once per call; the config hands out one object per solver, which keys the pool.
    const solver = config.getSolver({ chainId: params.chainId, solverId: params.solverId })
    if (streamOptions?.resume !== true) {
      return new Observable<T>((subscriber) => pool.acquire(solver, account, new SubscriberListener(subscriber, select)))
    }
    if (!backfillFor) throw new ServiceError('INVALID_PARAMETERS', 'resume needs search: create the client with createNotificationsClient.')
    return new Observable<T>((subscriber) => {
      // Resume streams put a gap filler between the socket and the subscriber.
      const filler = new GapFiller(new SubscriberListener(subscriber, select), {
        fetch: backfillFor(solver, account, streamOptions.maxBackfillRows ?? 1_000),
        timers: pool.timers,
        backoff: resolved,
        random: resolved.random,
        dedupeWindow: streamOptions.dedupeWindow ?? 2_048,
      })
      const release = pool.acquire(solver, account, filler)
      return () => {
        filler.dispose()
        release()
      }
    })
  }

  return {
    config,
    events: (params, streamOptions) => stream(params, allEvents, streamOptions),
    notifications: (params, streamOptions) => stream(params, notificationsOnly, streamOptions),
    status: (params) => stream(params, statusOnly).pipe(distinctUntilChanged()),
    stats: () => ({
      ...stats,
      frames: { ...stats.frames, dropped: { ...stats.frames.dropped } },
      timers: pool.timers.pending,
    }),
    close: () => pool.close(),
  }
}
