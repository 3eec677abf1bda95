import type { Continuity } from '../transport/Continuity.js'
import type { ServiceError } from '../errors/ServiceError.js'
import type { Notification, NotificationPhase, NotificationType } from '../protocol/types.js'
import type { SocketStatus } from '../transport/TransportEvent.js'
import type { Address } from '../utils/address.js'
import type { ResumeOptions } from '../stream/resume/resumeOptions.js'

/**
 * Where a quote stands, derived from its transitions in `modify_time` order (the table is in `quoteStatus.ts`).
 *
 * @example
 * const done: QuoteStatus[] = ['closed', 'cancelled', 'failed', 'liquidated']
 */
export type QuoteStatus = 'pending' | 'open' | 'closing' | 'closed' | 'cancelling' | 'cancelled' | 'failed' | 'liquidated' | 'unknown'

/**
 * The state of one quote, now: an immutable object that keeps its identity while the quote does not change.
 *
 * @example
 * book.quotes.map((q: QuoteState) => `${q.quoteId ?? q.tempQuoteId} ${q.status}`)
 */
export interface QuoteState {
  /** stable for the quote's life, also across the temporary → on-chain id switch */
  readonly key: string
  /** the on-chain id, or null before anchoring */
  readonly quoteId: number | null
  readonly tempQuoteId: number | null
  readonly account: Address
  readonly status: QuoteStatus
  /** the newest transition's phase, type, action and status */
  readonly phase: NotificationPhase
  readonly type: NotificationType
  readonly lastSeenAction: string | null
  readonly actionStatus: string | null
  /** the newest value any transition reported */
  readonly filledAmountOpen: string | null
  readonly filledAmountClose: string | null
  readonly avgPriceOpen: string | null
  readonly avgPriceClose: string | null
  /** the newest transition's failure (null when it reports none) */
  readonly failureType: string | null
  readonly failureMessage: string | null
  readonly errorCode: number | null
  readonly createTime: number | null
  readonly modifyTime: number | null
  /** the notifications that made it, in `modify_time` order, the newest `maxTransitions` kept */
  readonly transitions: readonly Notification[]
  /** status is `closed`, `cancelled`, `failed` or `liquidated` */
  readonly settled: boolean
}

/**
 * The quotes of one account, newest `modifyTime` first, with the stream's status: what `client.quotes` emits.
 *
 * @example
 * client.quotes({ account }).subscribe((book: QuoteBook) => { if (book.ready) render(book.quotes) })
 */
export interface QuoteBook {
  /** the history snapshot is in (false until then, and while it is retried after a failure) */
  readonly ready: boolean
  readonly status: SocketStatus
  /** the last failure, cleared by the next success; `BACKFILL_TRUNCATED` stays: the snapshot is incomplete */
  readonly error: ServiceError | null
  /** whether the book is whole (docs/guide/continuity.md): a book needs only each quote's latest state, so rasa history leaves it complete */
  readonly continuity?: Continuity | undefined
  readonly quotes: readonly QuoteState[]
}

/**
 * Which account's quotes `client.quotes` follows; chain and solver default from the config.
 *
 * @example
 * const params: QuotesParams = { account: '0x1111111111111111111111111111111111111111', solverId: 'beta' }
 */
export interface QuotesParams<Id extends string = string> {
  account: Address
  chainId?: number | undefined
  solverId?: Id | undefined
}

/**
 * Options of `client.quotes`: where the snapshot starts and what a quote keeps.
 *
 * @example
 * client.quotes({ account }, { since: Math.floor(Date.now() / 1000) - 86_400, maxTransitions: 20 })
 */
export interface QuotesOptions {
  /** unix seconds: load history changed from here (default: the account's whole history) */
  since?: number | undefined
  /** history rows the snapshot may read; more is a `BACKFILL_TRUNCATED` error on the book (10,000) */
  maxSnapshotRows?: number | undefined
  /** transitions each quote keeps, the newest (50) */
  maxTransitions?: number | undefined
  /** `for await` only: books buffered for a loop slower than the stream; past it the loop throws `SLOW_CONSUMER` (10,000) */
  highWaterMark?: number | undefined
  /** history polling while the socket is down, as `resume.poll` (on by default: 5 s after it went down, every 5 s) */
  poll?: ResumeOptions['poll']
}

/**
 * Which quote `client.waitFor` waits for: by on-chain id or by temporary id.
 *
 * @example
 * const params: WaitForParams = { account, tempQuoteId: -12 }
 */
export interface WaitForParams<Id extends string = string> extends QuotesParams<Id> {
  quoteId?: number | undefined
  tempQuoteId?: number | undefined
}

/**
 * What `client.waitFor` waits for and how long.
 *
 * @example
 * await client.waitFor({ account, quoteId }, { until: 'closed', timeoutMs: 60_000 })
 */
export interface WaitForOptions {
  /** a status, any of several, or a test on the quote */
  until: QuoteStatus | readonly QuoteStatus[] | ((quote: QuoteState) => boolean)
  /** 120,000 */
  timeoutMs?: number | undefined
  signal?: AbortSignal | undefined
  /** transitions kept on the quote it resolves with (50, as in a quote book) */
  maxTransitions?: number | undefined
}
