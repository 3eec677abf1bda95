import type { Subscription } from 'rxjs'
import type { NotificationsConfigInput } from '../config/types.js'
import { ServiceError, isServiceError } from '../errors/ServiceError.js'
import type { NotificationsClient } from '../client/createNotificationsClient.js'

/**
 * What every adapter hook's observer shares (TanStack-style): holds the options, subscribes while
 * someone listens, moves the subscription only when its key changes, and exposes a snapshot that is
 * idle on the server. Subclasses say what the key is and what a subscription does.
 */
export abstract class StreamObserver<S, O> {
  protected options: O
  #state: S
  readonly #listeners = new Set<() => void>()
  #subscription: Subscription | undefined
  #subscribedKey: string | undefined

  readonly #idle: S

  constructor(
    readonly client: NotificationsClient<NotificationsConfigInput>,
    options: O,
    idle: S) {
    this.#idle = idle
    this.options = options
    this.#state = idle
  }

  /** New options: a changed key (account, chain, solver, `enabled`, …) moves the subscription. */
  setOptions(options: O): void {
    this.options = options
    if (this.#listeners.size > 0) this.#sync()
  }

  /** For `useSyncExternalStore` and friends: the first listener starts the stream, the last stops it. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    if (this.#listeners.size === 1) this.#sync()
    return () => {
      this.#listeners.delete(listener)
      if (this.#listeners.size === 0) this.#stop()
    }
  }

  readonly getSnapshot = (): S => this.#state

  /** Server rendering never opens a socket: always idle. */
  readonly getServerSnapshot = (): S => this.#idle

  /** What identifies the subscription; undefined when there is none (no account, `enabled: false`). */
  protected abstract key(): string | undefined
  /** Starts the subscription for the current options; may throw a bad-parameter error. */
  protected abstract start(): Subscription
  /** The state for parameters the client refused. */
  protected abstract refused(error: ServiceError): S
  /** Called once the refused state is published. */
  protected afterRefused(_error: ServiceError): void {}
  /** Called after the subscription stopped; `wasSubscribed` when there was one. */
  protected stopped(_wasSubscribed: boolean): void {}

  protected get current(): S {
    return this.#state
  }

  #sync(): void {
    const key = this.key()
    if (key === this.#subscribedKey) return
    this.#stop()
    if (key === undefined) return
    this.#subscribedKey = key
    try {
      this.#subscription = this.start()
    } catch (cause) {
      // Bad parameters (e.g. an address typo) surface as state, not as a render-time crash.
      const error = isServiceError(cause) ? cause : new ServiceError('INVALID_PARAMETERS', String(cause), { cause })
      this.set(this.refused(error))
      this.afterRefused(error)
    }
  }

  #stop(): void {
    this.#subscription?.unsubscribe()
    this.#subscription = undefined
    const wasSubscribed = this.#subscribedKey !== undefined
    this.#subscribedKey = undefined
    if (wasSubscribed || this.#state !== this.#idle) {
      this.set(this.#idle)
      this.stopped(wasSubscribed)
    }
  }

  /** Publishes a new snapshot to every listener (the same object: nothing happens). */
  protected set(state: S): void {
    if (state === this.#state) return
    this.#state = state
    for (const listener of [...this.#listeners]) listener()
  }
}
