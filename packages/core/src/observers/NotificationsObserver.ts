import type { Subscription } from 'rxjs'
import type { RegisteredConfig } from '../config/Register.js'
import type { NotificationsConfigInput, SolverId } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import { StreamObserver } from './StreamObserver.js'
import type { Notification } from '../protocol/types.js'
import type { SocketStatus } from '../transport/TransportEvent.js'
import type { Address } from '../utils/address.js'
import type { NotificationsClient } from '../client/createNotificationsClient.js'
import type { ResumeOptions } from '../stream/createStreamClient.js'
import type { StatusEvent } from '../stream/NotificationEvent.js'
import type { Continuity } from '../transport/Continuity.js'

/**
 * What every adapter's `useNotifications` takes: the stream parameters, an `enabled` switch and
 * callbacks that may change on every render without resubscribing.
 *
 * @example
 * const options: UseNotificationsOptions = { account, onNotification: (n) => console.log(n.type) }
 */
export interface UseNotificationsOptions<C extends NotificationsConfigInput = RegisteredConfig> {
  account?: Address | null | undefined
  enabled?: boolean | undefined
  chainId?: number | undefined
  /** one of the configured solver ids (typed once a config is {@link Register}ed) */
  solverId?: SolverId<C> | undefined
  /** gap-free: backfill whatever may have been missed (see `ResumeOptions`) */
  resume?: boolean | ResumeOptions | undefined
  onNotification?: ((notification: Notification) => void) | undefined
  /** with `crossTab`: run `onNotification` in one tab only (the visible one when there is one), e.g. for toasts */
  notifyOnce?: boolean | undefined
  onStatusChange?: ((status: SocketStatus, event: StatusEvent | undefined) => void) | undefined
  onError?: ((error: ServiceError) => void) | undefined
}

/**
 * The state `useNotifications` returns: the socket status (`idle` with no account or `enabled: false`)
 * and the last error, cleared when the socket is open again.
 *
 * @example
 * const { status, error }: NotificationsState = observer.getSnapshot()
 */
export interface NotificationsState {
  status: SocketStatus
  error: ServiceError | null
  /** whether what the stream delivered is whole (docs/guide/continuity.md); undefined until it says */
  continuity?: Continuity | undefined
}

const IDLE: NotificationsState = /* @__PURE__ */ Object.freeze({ status: 'idle', error: null })

/**
 * The framework-free half of every adapter's `useNotifications` (TanStack-style observer): holds the
 * options, subscribes while someone listens, exposes a snapshot and calls the latest callbacks. A
 * callback that throws is reported as a `CALLBACK` error and never stops the stream.
 *
 * @example
 * const observer = new NotificationsObserver(client, { account })
 * const stop = observer.subscribe(() => render(observer.getSnapshot()))
 */
export class NotificationsObserver extends StreamObserver<NotificationsState, UseNotificationsOptions> {
  constructor(client: NotificationsClient<NotificationsConfigInput>, options: UseNotificationsOptions) {
    super(client, options, IDLE)
  }

  /** Only the callbacks change (safe during a render): they are read at call time, nothing resubscribes. */
  updateCallbacks(options: Pick<UseNotificationsOptions, 'onNotification' | 'onStatusChange' | 'onError'>): void {
    this.options = { ...this.options, onNotification: options.onNotification, onStatusChange: options.onStatusChange, onError: options.onError }
  }

  #unclaim: (() => void) | undefined

  protected key(): string | undefined {
    const { account, enabled = true, chainId, solverId, resume, notifyOnce } = this.options
    if (!account || !enabled) return undefined
    // Resume options written inline change identity every render: only their values move the subscription.
    const resumeKey = typeof resume === 'object' && resume !== null ? resumeIdentity(resume) : String(resume === true)
    return `${account.toLowerCase()} ${chainId ?? ''} ${solverId ?? ''} ${resumeKey} ${notifyOnce === true}`
  }

  protected start(): Subscription {
    const { account, chainId, solverId, resume, notifyOnce } = this.options
    // Tabs that share sockets agree on one of them to run the callback, per account and solver.
    const tabs = notifyOnce ? this.client.crossTab : undefined
    const onceKey = `${account!.toLowerCase()} ${chainId ?? ''} ${solverId ?? ''}`
    this.#unclaim = tabs?.claim(onceKey)
    return this.client.events({ account: account!, chainId, solverId }, { resume }).subscribe((event) => {
      if (event.type === 'notification') {
        if (!tabs || tabs.isNotifier(onceKey)) this.#call(() => this.options.onNotification?.(event.notification))
      }
      else if (event.type === 'error') this.#fail(event.error)
      else if (event.type === 'continuity') this.set({ ...this.current, continuity: event.continuity })
      else {
        this.#update({ status: event.status, error: event.status === 'open' ? null : this.current.error })
        this.#call(() => this.options.onStatusChange?.(event.status, event))
      }
    })
  }

  protected refused(error: ServiceError): NotificationsState {
    return { status: 'idle', error }
  }

  protected override afterRefused(error: ServiceError): void {
    this.#call(() => this.options.onError?.(error))
  }

  protected override stopped(wasSubscribed: boolean): void {
    this.#unclaim?.()
    this.#unclaim = undefined
    if (wasSubscribed) this.#call(() => this.options.onStatusChange?.('idle', undefined))
  }

  #fail(error: ServiceError): void {
    this.#update({ status: this.current.status, error })
    try {
      this.options.onError?.(error)
    } catch {
      // onError itself failing has nowhere left to be reported; the stream goes on.
    }
  }

  #call(callback: () => void): void {
    try {
      callback()
    } catch (cause) {
      this.#fail(new ServiceError('CALLBACK', `A useNotifications callback threw: ${(cause as Error)?.message ?? String(cause)}. Fix the callback; the stream goes on.`, { cause }))
    }
  }

  #update(state: Pick<NotificationsState, 'status' | 'error'>): void {
    if (state.status === this.current.status && state.error === this.current.error) return
    this.set(this.current.continuity ? { ...state, continuity: this.current.continuity } : state)
  }
}

/** The values of resume options that matter for a subscription; the checkpoint store by identity. */
const stores = new WeakMap<object, number>()
let nextStore = 0
function resumeIdentity(resume: ResumeOptions): string {
  const store = resume.checkpoint
  let storeId = 0
  if (store) {
    storeId = stores.get(store) ?? ++nextStore
    stores.set(store, storeId)
  }
  return `{${resume.since ?? ''},${storeId},${resume.maxBackfillRows ?? ''},${resume.maxHeldFrames ?? ''},${resume.sweepIntervalMs ?? ''},${resume.dedupeWindow ?? ''}}`
}
