import type { Subscription } from 'rxjs'
import type { RegisteredConfig } from '../config/Register.js'
import type { NotificationsConfigInput, SolverId } from '../config/types.js'
import type { ServiceError } from '../errors/ServiceError.js'
import type { NotificationsClient } from '../client/createNotificationsClient.js'
import type { QuoteBook } from '../quotes/QuoteState.js'
import type { Address } from '../utils/address.js'
import { StreamObserver } from './StreamObserver.js'

/**
 * What every adapter's `useQuotes` takes.
 *
 * @example
 * const options: UseQuotesOptions = { account, solverId: 'beta', since: snapshotAt }
 */
export interface UseQuotesOptions<C extends NotificationsConfigInput = RegisteredConfig> {
  account?: Address | null | undefined
  enabled?: boolean | undefined
  chainId?: number | undefined
  solverId?: SolverId<C> | undefined
  /** unix seconds: load history changed from here (default: the whole history) */
  since?: number | undefined
}

/**
 * What `useQuotes` returns: the book now (`idle`, not ready and empty with no account or `enabled: false`).
 *
 * @example
 * const { ready, quotes }: QuotesState = observer.getSnapshot()
 */
export type QuotesState = QuoteBook

const IDLE: QuotesState = /* @__PURE__ */ Object.freeze({ ready: false, status: 'idle', error: null, quotes: Object.freeze([]) })

/**
 * The framework-free half of every adapter's `useQuotes`: follows `client.quotes` while someone
 * listens; each snapshot is the book itself, so unchanged quotes keep their objects across renders.
 *
 * @example
 * const observer = new QuotesObserver(client, { account })
 * const stop = observer.subscribe(() => render(observer.getSnapshot().quotes))
 */
export class QuotesObserver extends StreamObserver<QuotesState, UseQuotesOptions> {
  constructor(client: NotificationsClient<NotificationsConfigInput>, options: UseQuotesOptions) {
    super(client, options, IDLE)
  }

  protected key(): string | undefined {
    const { account, enabled = true, chainId, solverId, since } = this.options
    if (!account || !enabled) return undefined
    return `${account.toLowerCase()} ${chainId ?? ''} ${solverId ?? ''} ${since ?? ''}`
  }

  protected start(): Subscription {
    const { account, chainId, solverId, since } = this.options
    return this.client.quotes({ account: account!, chainId, solverId }, { since }).subscribe((book) => this.set(book))
  }

  protected refused(error: ServiceError): QuotesState {
    return Object.freeze({ ...IDLE, error })
  }
}
