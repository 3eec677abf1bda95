import { Observable, distinctUntilChanged } from 'rxjs'
import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import type { Notification, SocketStatus } from '../protocol/types.js'
import { SocketPool } from '../transport/SocketPool.js'
import { type Address, assertAddress } from '../utils/address.js'
import { type ClientStats, createStats } from './ClientStats.js'
import { type NotificationsClientOptions, resolveClientOptions } from './clientOptions.js'
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
 * The live half of the client: Observables over a shared socket pool, stats and close.
 *
 * @example
 * const sub = client.notifications({ account }).subscribe((n) => console.log(n.type))
 */
export interface NotificationsStreamClient<C extends NotificationsConfigInput = NotificationsConfigInput> {
  readonly config: NotificationsConfig<C>
  /** Notifications, status changes and errors of one account; never errors, completes on `close()`. */
  events(params: StreamParams<C>): Observable<NotificationEvent>
  /** The notifications of one account (a view of `events`). */
  notifications(params: StreamParams<C>): Observable<Notification>
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
export function createStreamClient<C extends NotificationsConfigInput>(options: NotificationsClientOptions<C>): NotificationsStreamClient<C> {
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
  const stream = <T>(params: StreamParams<C>, select: (event: NotificationEvent, next: (value: T) => void) => void): Observable<T> => {
    const { solver, account } = resolve(params)
    return new Observable<T>((subscriber) => {
      const next = (value: T) => subscriber.next(value)
      return pool.acquire(solver, account, {
        event: (event) => select(event, next),
        complete: () => subscriber.complete(),
      })
    })
  }

  return {
    config,
    events: (params) => stream<NotificationEvent>(params, (event, next) => next(event)),
    notifications: (params) =>
      stream<Notification>(params, (event, next) => {
        if (event.type === 'notification') next(event.notification)
      }),
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
