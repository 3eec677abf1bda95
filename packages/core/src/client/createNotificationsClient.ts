import type { QuoteBookSnapshot } from '../stream/ClientSnapshot.js'
import type { NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import { createBackfill } from '../search/backfill.js'
import type { SearchHttpOptions } from '../search/postJson.js'
import { searchNotifications } from '../search/searchNotifications.js'
import { searchPages } from '../search/searchPages.js'
import { searchUnavailable } from '../search/searchUnavailable.js'
import type { SearchOptions, SearchPagesOptions, SearchParamsFor, SearchResultFor } from '../search/types.js'
import type { NotificationsClientOptions } from '../stream/clientOptions.js'
import { type NotificationsStreamClient, type ResumeFeature, createStreamClient, warnOnce } from '../stream/createStreamClient.js'
import { createCrossTabPool } from '../transport/crossTab/createCrossTabPool.js'
import { checkpointKey } from '../stream/resume/CheckpointStore.js'
import { type ResumeContext, ResumeStream } from '../stream/resume/ResumeStream.js'
import { resolveResumeSettings } from '../stream/resume/resumeOptions.js'
import { HistoryGate, resolveHistoryConcurrency } from '../stream/resume/HistoryGate.js'
import { quoteBooks } from '../quotes/quoteBooks.js'
import type { QuoteBook, QuoteState, QuotesOptions, QuotesParams, WaitForOptions, WaitForParams } from '../quotes/QuoteState.js'
import { waitForQuote } from '../quotes/waitForQuote.js'
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
  const historyConcurrency = resolveHistoryConcurrency(options.search?.concurrency)
  const contexts = new Map<ResolvedSolver, ResumeContext>()
  const resume = {
    // A checkpoint read gets the search deadline.
    settings: (wanted: Parameters<ResumeFeature['settings']>[0]) => resolveResumeSettings(wanted, http.timeoutMs ?? 10_000),
    unavailable: searchUnavailable,
    create: ({ out, solver, account, settings, pool, transport, stats, clientClosed }: Parameters<ResumeFeature['create']>[0]) => {
      // One context per solver for all its streams (a relay holds thousands): nothing per account in it.
      let ctx = contexts.get(solver)
      if (!ctx) {
        // The endpoint's history requests of all its streams go through one gate (concurrency, spread polls, Retry-After).
        const gate = new HistoryGate(historyConcurrency, pool.timers)
        contexts.set(
          solver,
          (ctx = {
            fetch: (request, of) => gate.run(() => backfill(solver, of)(request), request.signal, request.poll === true),
            polling: (stream, intervalMs) => gate.polling(stream, intervalMs),
            keyOf: (of) => checkpointKey(solver.chainId, solver.solverId, of),
            release: (stream) => pool.release(stream),
            timers: pool.timers,
            backoff: transport,
            random: transport.random,
            stats,
            logger: transport.logger,
            clientClosed,
          }),
        )
      }
      return new ResumeStream(out, ctx, account, settings)
    },
  }
  const stream = createStreamClient(options, resume, (local, config, option) => createCrossTabPool(local, config, option, warnOnce))
  const openBooks = new Set<() => QuoteBookSnapshot>()
  return {
    ...stream,
    inspect: (inspectOptions) => stream.inspect(inspectOptions).pipe(map((snapshot) => ({ ...snapshot, quoteBooks: [...openBooks].map((look) => look()) }))),
    search: (params, searchOptions) => searchNotifications(options.config, params, { ...http, ...searchOptions }),
    searchPages: (params, pageOptions) => searchPages(options.config, params, { ...http, ...pageOptions }),
    quotes: (params, quotesOptions) => quoteBooks(stream, params, quotesOptions, openBooks),
    waitFor: (params, waitOptions) => waitForQuote(stream, backfill, params, waitOptions),
  }
}
