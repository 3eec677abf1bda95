import type { QuoteBookSnapshot } from '../stream/ClientSnapshot.js'
import type { NotificationsConfigInput, SolverId } from '../config/types.js'
import { createBackfill } from '../search/backfill.js'
import type { SearchHttpOptions } from '../search/postJson.js'
import { searchNotifications } from '../search/searchNotifications.js'
import { searchPages } from '../search/searchPages.js'
import type { SearchObserver, SearchOptions, SearchPagesOptions, SearchParamsFor, SearchResultFor } from '../search/types.js'
import type { NotificationsClientOptions } from '../stream/clientOptions.js'
import { type NotificationsStreamClient, createStreamClient, timersOf, warnOnce } from '../stream/createStreamClient.js'
import type { Diagnostics } from '../transport/Diagnostics.js'
import { createResumeFeature } from '../stream/resume/resumeFeature.js'
import { createCrossTabPool } from '../transport/crossTab/createCrossTabPool.js'
import { quoteBooks } from '../quotes/quoteBooks.js'
import { ServiceError, isServiceError } from '../errors/ServiceError.js'
import { isSameNotification } from '../protocol/notificationKey.js'
import { setLongTimeout } from '../utils/setLongTimeout.js'
import { type CheckedWait, checkWaitFor } from '../quotes/checkWaitFor.js'
import type { QuoteBook, QuoteState, QuotesOptions, QuotesParams, WaitForOptions, WaitForParams } from '../quotes/QuoteState.js'
import { map } from 'rxjs'
import type { IterableObservable } from '../stream/IterableObservable.js'

/**
 * The client apps use: live streams over the shared pool, and history search.
 *
 * @example
 * const client = createNotificationsClient({ config })
 * client.notifications({ account }).subscribe((n) => console.log(n.quoteId, n.type))
 * const page = await client.search({ account })
 */
export interface NotificationsClient<C extends NotificationsConfigInput = NotificationsConfigInput> extends NotificationsStreamClient<C> {
  /** One page of stored history; the result is narrowed by a literal `solverId`. */
  search<S extends SolverId<C> | undefined = undefined>(params: SearchParamsFor<C, S>, options?: SearchOptions): Promise<SearchResultFor<C, S>>
  /** Page after page of stored history. */
  searchPages<S extends SolverId<C> | undefined = undefined>(params: SearchParamsFor<C, S>, options?: SearchPagesOptions): AsyncIterable<SearchResultFor<C, S>>
  /** The state of each quote of an account, now: a history snapshot joined with the live stream; never errors. */
  quotes(params: QuotesParams<SolverId<C>>, options?: QuotesOptions): IterableObservable<QuoteBook>
  /** Resolves when a quote reaches a status (or a test holds), from live frames or by chasing history; rejects with `TIMEOUT` or `ABORTED`. */
  waitFor(params: WaitForParams<SolverId<C>>, options: WaitForOptions): Promise<QuoteState>
}

/**
 * Creates a {@link NotificationsClient}. Nothing connects until the first subscription.
 *
 * @example
 * const client = createNotificationsClient({ config, lingerMs: 2_000, search: { timeoutMs: 5_000 } })
 */
export function createNotificationsClient<C extends NotificationsConfigInput>(
  options: NotificationsClientOptions<C> & { search?: SearchHttpOptions },
): NotificationsClient<C> {
  // History requests (search, paging, backfill, waitFor's chase) ask the same auth as the sockets.
  const http = { ...options.search, auth: options.auth }
  const backfill = createBackfill(http)
  // The gates arm their timers on the client's (created below; asked only when a read happens).
  const resume = createResumeFeature(http, backfill, () => timersOf(stream), () => stream.diagnostics as Diagnostics)
  // A follower waits for the leader's history answer as long as the leader's own deadlines allow (one
  // wait for its gate, one request), and a second more for the channel; then it reads itself.
  const answerMs = 2 * (http.timeoutMs ?? 10_000) + 1_000
  const stream = createStreamClient(options, resume, (local, config, option) => createCrossTabPool(local, config, option, warnOnce, resume.read, answerMs))
  const openBooks = new Set<() => QuoteBookSnapshot>()
  // The app's searches (not backfills: they have their own events) on the diagnostics seam, while it listens.
  const observe: SearchObserver = (start) => {
    const d = stream.diagnostics as Diagnostics
    const id = d.active ? d.id() : 0
    if (!id) return undefined
    d.emit({ type: 'search', phase: 'start', id, ...start })
    return (error?: { code?: string; status?: number }) =>
      d.emit({ type: 'search', phase: 'end', id, outcome: error ? 'failed' : 'ok', errorCode: error && (error.code ?? 'UNKNOWN'), status: error?.status })
  }
  return {
    ...stream,
    inspect: (inspectOptions) => stream.inspect(inspectOptions).pipe(map((snapshot) => ({ ...snapshot, quoteBooks: [...openBooks].map((look) => look()) }))),
    search: (params, searchOptions) => searchNotifications(options.config, params, { ...http, ...searchOptions, observe }),
    searchPages: (params, pageOptions) => searchPages(options.config, params, { ...http, ...pageOptions, observe }),
    quotes: (params, quotesOptions) => quoteBooks(stream, params, quotesOptions, openBooks),
    // Arguments are checked at the call; the wait is a chunk of its own, fetched when one starts (an app
    // that never waits does not download it). Bad arguments reject like every other outcome.
    waitFor: (params, waitOptions) =>
      new Promise<CheckedWait>((resolve) => resolve(checkWaitFor(params, waitOptions))).then((checked) =>
        import('../quotes/waitForQuote.js').then(
          ({ waitForQuote }) => waitForQuote(stream, backfill, params, waitOptions, checked, timersOf(stream), { ServiceError, isServiceError, setLongTimeout, isSameNotification, diagnostics: stream.diagnostics as Diagnostics }),
          (cause: unknown) => Promise.reject(new ServiceError('NETWORK', `waitFor could not load its code (${String(cause)}): check the network.`, { cause })),
        ),
      ),
  }
}

