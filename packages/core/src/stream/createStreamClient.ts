import { Observable, distinctUntilChanged } from 'rxjs'
import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import type { Notification, SocketStatus } from '../protocol/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { Listener } from '../transport/ManagedSocket.js'
import { SocketPool } from '../transport/SocketPool.js'
import { type Address, assertAddress } from '../utils/address.js'
import { type ClientStats, createStats } from './ClientStats.js'
import { type NotificationsClientOptions, resolveClientOptions } from './clientOptions.js'
import { type BackfillFetch, GapFiller } from './GapFiller.js'
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

/**
 * Creates the live client over one shared, reconnecting, multiplexing socket pool. Bad parameters
 * throw a `ServiceError` at the call; streams themselves never error.
 *
 * @example
 * const client = createNotificationsClient({ config })
 * client.notifications({ account: '0x1111111111111111111111111111111111111111' }).subscribe(console.log)
 */
export function createStreamClient<C extends NotificationsConfigInput>(
  options: NotificationsClientOptions<C>,
  backfillFor?: (solver: ResolvedSolver, account: Address, maxRows: number) => BackfillFetch,
): NotificationsStreamClient<C> {
  const resolved = resolveClientOptions(options)
  const stats = createStats()
  const pool = new SocketPool(resolved, stats)
  const { config } = options

  const resolve = (params: StreamParams<C>): { solver: ResolvedSolver; account: Address } => {
    assertAddress(params?.account)
    return { solver: config.getSolver({ chainId: params.chainId, solverId: params.solverId }), account: params.account }
  }

  /**
   * One Observable per subscription straight over the pool; the views filter inside the listener
   * instead of through operators, which keeps an idle subscription small (SPEC §10 B4).
   */
  const stream = <T>(
    params: StreamParams<C>,
    select: (event: NotificationEvent, next: (value: T) => void) => void,
    streamOptions?: StreamOptions,
  ): Observable<T> => {
    const { solver, account } = resolve(params)
    const resume = streamOptions?.resume === true
    if (resume && !backfillFor) throw new ServiceError('INVALID_PARAMETERS', 'resume needs search: create the client with createNotificationsClient.')
    return new Observable<T>((subscriber) => {
      const next = (value: T) => subscriber.next(value)
      const listener: Listener = { event: (event) => select(event, next), complete: () => subscriber.complete() }
      if (!resume) return pool.acquire(solver, account, listener)
      // Resume streams put a gap filler between the socket and the subscriber.
      const filler = new GapFiller(listener, {
        fetch: backfillFor!(solver, account, streamOptions?.maxBackfillRows ?? 1_000),
        timers: pool.timers,
        backoff: resolved,
        random: resolved.random,
        dedupeWindow: streamOptions?.dedupeWindow ?? 2_048,
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
    events: (params, streamOptions) => stream<NotificationEvent>(params, (event, next) => next(event), streamOptions),
    notifications: (params, streamOptions) =>
      stream<Notification>(
        params,
        (event, next) => {
          if (event.type === 'notification') next(event.notification)
        },
        streamOptions,
      ),
    status: (params) =>
      stream<SocketStatus>(params, (event, next) => {
        if (event.type === 'status') next(event.status)
      }).pipe(distinctUntilChanged()),
    stats: () => ({
      ...stats,
      frames: { ...stats.frames, dropped: { ...stats.frames.dropped } },
      timers: pool.timers.pending,
    }),
    close: () => pool.close(),
  }
}
