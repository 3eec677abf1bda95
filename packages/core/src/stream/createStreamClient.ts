import { Observable, type Subscriber, type TeardownLogic, distinctUntilChanged, map, timer } from 'rxjs'
import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'
import type { CrossTabStats } from '../transport/crossTab/CrossTabPool.js'
import { type ListenerPool, PooledListener } from '../transport/ListenerPool.js'
import { SocketPool } from '../transport/SocketPool.js'
import { Timers } from '../transport/Timers.js'
import type { DiagnosticEvent } from '../transport/Diagnostics.js'
import type { TransportOptions } from '../transport/TransportOptions.js'
import type { SocketStatus, TransportErrorEvent } from '../transport/TransportEvent.js'
import { type Address, assertAddress, describe } from '../utils/address.js'
import { type ClientStats, createClientStats } from './ClientStats.js'
import type { ClientSnapshot } from './ClientSnapshot.js'
import { type NotificationsClientOptions, resolveClientOptions } from './clientOptions.js'
import type { ResumeOptions } from './resume/resumeOptions.js'
import type { StreamListener } from './resume/ResumeStream.js'
import type { NotificationEvent, StatusEvent } from './NotificationEvent.js'
import { type Continuity, liveContinuity } from '../transport/Continuity.js'
import { type IterableObservable, StreamObservable, type StreamEnding, resolveHighWaterMark, withHighWaterMark } from './IterableObservable.js'

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

export type { ResumeOptions } from './resume/resumeOptions.js'

/**
 * Per-stream options. `resume` makes the stream gap-free: it backfills through search whenever a gap
 * may exist (first load from `since` or a checkpoint, every reconnect) and delivers each notification
 * once, in `modify_time` order per quote (backfilled ones with `source: 'backfill'`).
 *
 * @example
 * client.notifications({ account }, { resume: true })
 */
export interface StreamOptions {
  resume?: boolean | ResumeOptions | undefined
  /** `for await` only: items buffered for a loop slower than the stream; past it the loop throws `SLOW_CONSUMER` (10,000) */
  highWaterMark?: number | undefined
}

/**
 * The live half of the client: Observables over a shared socket pool, stats and close.
 *
 * @example
 * const sub = client.notifications({ account }).subscribe((n) => console.log(n.type))
 */
export interface NotificationsStreamClient<C extends NotificationsConfigInput = NotificationsConfigInput> {
  readonly config: NotificationsConfig<C>
  /** Notifications, status changes and errors of one account; never errors, completes on `close()`. Also `for await`-able. */
  events(params: StreamParams<C>, options?: StreamOptions): IterableObservable<NotificationEvent>
  /** The notifications of one account (a view of `events`). Also `for await`-able. */
  notifications(params: StreamParams<C>, options?: StreamOptions): IterableObservable<Notification>
  /** The socket status of one account: the current value first, then changes (a view of `events`). */
  status(params: StreamParams<C>): Observable<SocketStatus>
  stats(): ClientStats
  /**
   * What the client is doing, as snapshots (at once, then every `intervalMs`, 1,000): each socket with
   * its state, last close, accounts and resume streams (phase, watermark, held frames, last backfill),
   * and the counters. Nothing is computed while nobody subscribes.
   */
  inspect(options?: { intervalMs?: number }): Observable<ClientSnapshot>
  /** Closes every socket; open streams emit status `closed` and complete. */
  close(): void
  /** Cross-tab coordination when `crossTab` is on in a browser (what `notifyOnce` asks); undefined otherwise. */
  readonly crossTab: CrossTabHandle | undefined
  /**
   * What the client does, as events (dials, deliveries with their timings, backfills, gaps, `waitFor`,
   * errors): what `@solver-notifications/otel` turns into metrics and spans. Free while nobody listens.
   */
  readonly diagnostics: DiagnosticsSeam
}

/**
 * A client's diagnostics seam: listeners get every {@link DiagnosticEvent}.
 *
 * @example
 * const stop = client.diagnostics.subscribe((e) => e.type === 'error' && console.warn(e.code))
 */
export interface DiagnosticsSeam {
  subscribe(listener: (event: DiagnosticEvent) => void): () => void
}

/**
 * What a client sharing its sockets across tabs answers: which tab runs a `notifyOnce` callback.
 *
 * @example
 * const release = client.crossTab?.claim(key); if (client.crossTab?.isNotifier(key) ?? true) toast(n)
 */
export interface CrossTabHandle {
  /** this tab wants `notifyOnce` callbacks for `key`; returns the withdrawal */
  claim(key: string): () => void
  /** whether this tab is the one that runs them (the visible one when there is one) */
  isNotifier(key: string): boolean
  stats(): CrossTabStats
}

/**
 * What makes `crossTab` possible, given by the full client: wraps this tab's pool in one shared with
 * the other tabs, or returns undefined where the browser APIs are missing (after saying so once).
 */
export type CrossTabFeature = (local: SocketPool, config: NotificationsConfig, option: true | { name?: string | undefined }) => (ListenerPool & CrossTabHandle) | undefined

/**
 * Feeds one Observable subscriber and is its own pool lease and teardown: one small object per
 * subscription keeps an idle one cheap and a subscribe loop fast (heap per idle subscription, subscribe loops of 10,000 accounts). Each view is a
 * subclass, so the frame path makes no call through a selector and no event object it does not need.
 */
abstract class ViewListener<T> extends PooledListener implements StreamListener {
  readonly #pool: ListenerPool
  /** a resume stream feeds it (and tells its continuity) */
  resumed = false

  constructor(
    protected readonly subscriber: Subscriber<T>,
    pool: ListenerPool) {
    super()
    this.#pool = pool
  }
  abstract override event(event: StatusEvent | TransportErrorEvent): void
  complete(): void {
    this.subscriber.complete()
  }
  unsubscribe(): void {
    this.#pool.release(this)
  }
}

class EventsView extends ViewListener<NotificationEvent> {
  /** a live-only stream's continuity, read off its statuses (a resume stream tells its own) */
  #live: Continuity | undefined
  notification(notification: Notification): void {
    this.subscriber.next(Object.freeze({ type: 'notification', notification }))
  }
  event(event: StatusEvent | TransportErrorEvent): void {
    this.subscriber.next(event)
    if (event.type !== 'status' || this.resumed) return
    const next = liveContinuity(this.#live, event)
    if (next) this.continuity((this.#live = next))
  }
  continuity(continuity: Continuity): void {
    this.subscriber.next(Object.freeze({ type: 'continuity', continuity }))
  }
}

class NotificationsView extends ViewListener<Notification> {
  notification(notification: Notification): void {
    this.subscriber.next(notification)
  }
  event(): void {}
}

class StatusView extends ViewListener<SocketStatus> {
  notification(): void {}
  event(event: StatusEvent | TransportErrorEvent): void {
    if (event.type === 'status') this.subscriber.next(event.status)
  }
}

type View<T> = new (subscriber: Subscriber<T>, pool: ListenerPool) => ViewListener<T>

/** A live stream of one account; subscribing puts a view listener in the pool (a subclass: no closure per stream). */
class PoolObservable<T> extends StreamObservable<T> {
  readonly #pool: ListenerPool
  readonly #solver: ResolvedSolver
  readonly #account: Address
  readonly #View: View<T>

  constructor(
    pool: ListenerPool,
    solver: ResolvedSolver,
    account: Address,
    View: View<T>) {
    super()
    this.#pool = pool
    this.#solver = solver
    this.#account = account
    this.#View = View
  }
  // rxjs calls `_subscribe` (its documented extension point, as Subject uses it); not in its public typings.
  protected _subscribe(subscriber: Subscriber<T>): TeardownLogic {
    const listener = new this.#View(subscriber, this.#pool)
    this.#pool.acquire(this.#solver, this.#account, listener)
    return listener
  }
}

/**
 * What makes resume streams possible, given by the full client (it needs search): the Observable of a
 * resume stream, whose listener sits between the socket and the subscriber. Kept out of
 * `createStreamClient` so a live-only bundle carries no backfill code.
 */
export interface ResumeFeature {
  /**
   * Checks the stream's `resume` option (throws `INVALID_PARAMETERS` at the call) and returns its
   * Observable; `view` makes what feeds a subscriber. A solver whose history cannot be read gives a
   * stream that ends at once with that error.
   */
  observe<T>(args: {
    wanted: true | ResumeOptions
    solver: ResolvedSolver
    account: Address
    view: (subscriber: Subscriber<T>) => StreamListener
    pool: ListenerPool
    transport: TransportOptions
    stats: ClientStats
    /** whether the client was closed (a stream that outlives its socket, `poll.whenClosed`, ends then) */
    clientClosed: () => boolean
  }): StreamObservable<T>
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
  resume?: ResumeFeature,
  crossTabFeature?: CrossTabFeature,
): NotificationsStreamClient<C> {
  const resolved = resolveClientOptions(options)
  const stats = createClientStats()
  const local = new SocketPool(resolved, stats)
  const { config } = options
  const wantsCrossTab = options.crossTab !== undefined && options.crossTab !== false
  if (wantsCrossTab && !crossTabFeature) warnOnce('crossTab needs createNotificationsClient (createStreamClient alone keeps its own sockets).')
  const crossTab = wantsCrossTab && crossTabFeature ? crossTabFeature(local, config as NotificationsConfig, options.crossTab as true | { name?: string }) : undefined
  const pool: ListenerPool = crossTab ?? local
  // Closing the client closes this tab's pool, with cross-tab too.
  const clientClosed = () => local.isClosed
  let inspectors = 0

  const stream = <T>(params: StreamParams<C>, View: View<T>, streamOptions?: StreamOptions, ending?: StreamEnding): IterableObservable<T> => {
    assertAddress(params?.account)
    const account = params.account
    // Resolved once per call; the config hands out one object per solver, which keys the pool.
    const solver = config.getSolver({ chainId: params.chainId, solverId: params.solverId })
    const wanted = streamOptions?.resume
    const highWaterMark = resolveHighWaterMark(streamOptions?.highWaterMark, 'stream')
    if (wanted === undefined || wanted === false) return withHighWaterMark(new PoolObservable(pool, solver, account, View), highWaterMark, ending)
    if (!resume) throw new ServiceError('INVALID_PARAMETERS', 'resume needs search: create the client with createNotificationsClient.')
    const view = (subscriber: Subscriber<T>) => {
      const listener = new View(subscriber, pool)
      listener.resumed = true
      return listener
    }
    return withHighWaterMark(resume.observe({ wanted, solver, account, view, pool, transport: resolved, stats: stats as ClientStats, clientClosed }), highWaterMark, ending)
  }

  const client: NotificationsStreamClient<C> = {
    config,
    events: (params, streamOptions) => stream(params, EventsView, streamOptions, 'event'),
    notifications: (params, streamOptions) => stream(params, NotificationsView, streamOptions),
    status: (params) => stream(params, StatusView).pipe(distinctUntilChanged()),
    inspect: (inspectOptions) => {
      const every = inspectOptions?.intervalMs ?? 1_000
      if (!(typeof every === 'number' && every >= 50)) throw new ServiceError('INVALID_PARAMETERS', `inspect: intervalMs must be at least 50 ms, got ${describe(every)}`)
      return new Observable<ClientSnapshot>((subscriber) => {
        inspectors++
        const ticks = timer(0, every)
          .pipe(map(() => ({ at: Date.now(), sockets: local.inspect(), quoteBooks: [], stats: client.stats() })))
          .subscribe(subscriber)
        return () => {
          ticks.unsubscribe()
          // The last inspector gone: streams forget what they recorded for it and record nothing more.
          if (--inspectors === 0) local.forgetInspection()
        }
      })
    },
    stats: () => ({
      ...stats,
      frames: { ...stats.frames, dropped: { ...stats.frames.dropped } },
      backfills: { ...stats.backfills },
      socketStatus: { ...stats.socketStatus },
      timers: pool.timers.pending,
      ...(crossTab ? { crossTab: crossTab.stats() } : {}),
    }),
    close: () => pool.close(),
    crossTab,
    // The seam itself; its type shows only `subscribe` (emitting is the client's).
    diagnostics: resolved.diagnostics,
  }
  clientTimers.set(client, pool.timers)
  return client
}

/** Each client's timers, for the features built on it (`waitFor`): what they arm shows in `stats().timers`. */
const clientTimers = new WeakMap<object, Timers>()

/** The timers of a client made by {@link createStreamClient} (internal: `waitFor` arms its deadline and chase there). */
export function timersOf(client: object): Timers {
  return clientTimers.get(client) ?? new Timers()
}

let warned = false
/** One `console.warn` per page or process, however many clients are made. */
export function warnOnce(message: string): void {
  if (warned) return
  warned = true
  console.warn(`solver-notifications: ${message}`)
}
