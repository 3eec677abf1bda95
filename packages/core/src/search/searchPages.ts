import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import { searchProtocols } from '../protocol/searchProtocols.js'
import type { NotificationSearchResult, SearchNotificationsParams } from '../protocol/searchTypes.js'
import type { SearchHttpOptions } from './postJson.js'
import { repeatedPageGuard } from './repeatedPage.js'
import { searchSolver } from './searchNotifications.js'
import type { SearchObserver, SearchPagesOptions, SearchParamsFor, SearchResultFor } from './types.js'
import { validateSearchParams } from './validateSearchParams.js'
import { describe } from '../utils/address.js'

/**
 * Walks search results page after page (100 rows a page unless `size` is given): until every row the
 * service counts is seen, a page comes back short, or `maxRows` rows were read. Stops (rejects with
 * `ABORTED`) when the signal aborts.
 *
 * @example
 * for await (const page of searchPages(config, { solverId: 'beta', account }, { maxRows: 1_000 })) rows.push(...page.rows)
 */
export async function* searchPages<C extends NotificationsConfigInput, S extends SolverId<C> | undefined = undefined>(
  config: NotificationsConfig<C>,
  params: SearchParamsFor<C, S>,
  options: SearchPagesOptions & SearchHttpOptions & { observe?: SearchObserver | undefined } = {},
): AsyncGenerator<SearchResultFor<C, S>, void, undefined> {
  const solver = config.getSolver({ chainId: params?.chainId, solverId: params?.solverId })
  validateSearchParams(params, searchProtocols[solver.notifications.protocol], config.allowInsecureTransport)
  yield* pagesOf(solver, params, options) as AsyncGenerator<SearchResultFor<C, S>, void, undefined>
}

/** The paging loop over a resolved solver with validated parameters (shared with backfill). */
export async function* pagesOf(
  solver: ResolvedSolver,
  params: SearchNotificationsParams,
  options: SearchPagesOptions & SearchHttpOptions & { observe?: SearchObserver | undefined },
): AsyncGenerator<NotificationSearchResult, void, undefined> {
  const { maxRows = Number.POSITIVE_INFINITY, ...requestOptions } = options
  if (!(maxRows > 0)) throw new ServiceError('INVALID_PARAMETERS', `maxRows must be a positive number, got ${describe(maxRows)}`)
  const search = searchProtocols[solver.notifications.protocol]
  const size = params.size ?? search.pageSize
  let start = params.start ?? 0
  let read = 0
  const repeated = repeatedPageGuard(() => search.request(solver, { ...params, start, size }).url)
  while (read < maxRows) {
    const remaining = maxRows - read
    const pageSize = Math.min(size, remaining)
    const page = await searchSolver(solver, { ...params, start, size: pageSize }, requestOptions)
    const rows = page.rows.length
    repeated(page.rows, start)
    yield rows > remaining ? ({ ...page, rows: page.rows.slice(0, remaining) } as NotificationSearchResult) : page
    read += Math.min(rows, remaining)
    start += rows
    if (rows === 0 || rows < pageSize || start >= search.totalOf(page)) return
  }
}
