import type { NotificationsConfig, NotificationsConfigInput, SolverId } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { SearchHttpOptions } from './postJson.js'
import { searchDrivers } from './searchDrivers.js'
import { searchNotifications } from './searchNotifications.js'
import type { NotificationSearchResult, SearchPagesOptions, SearchParamsFor, SearchResultFor } from './types.js'

/**
 * Walks search results page after page: until every row the service counts is seen, a page comes
 * back short, or `maxRows` rows were read. Stops (rejects with `ABORTED`) when the signal aborts.
 *
 * @example
 * for await (const page of searchPages(config, { solverId: 'beta', account }, { maxRows: 1_000 })) rows.push(...page.rows)
 */
export async function* searchPages<C extends NotificationsConfigInput, S extends SolverId<C> | undefined = undefined>(
  config: NotificationsConfig<C>,
  params: SearchParamsFor<C, S>,
  options: SearchPagesOptions & SearchHttpOptions = {},
): AsyncGenerator<SearchResultFor<C, S>, void, undefined> {
  const { maxRows = Number.POSITIVE_INFINITY, ...requestOptions } = options
  if (!(maxRows > 0)) throw new ServiceError('INVALID_PARAMETERS', `maxRows must be a positive number, got ${String(maxRows)}`)
  const protocol = config.getSolver({ chainId: params?.chainId, solverId: params?.solverId }).notifications.protocol
  const driver = searchDrivers[protocol]
  let size: number | undefined = params.size ?? driver.defaultSize
  let start = params.start ?? 0
  let read = 0
  while (read < maxRows) {
    const remaining = maxRows - read
    const pageSize = size === undefined ? undefined : Math.min(size, remaining)
    const page: NotificationSearchResult = await searchNotifications(config, { ...params, start, size: pageSize } as SearchParamsFor<C, S>, requestOptions)
    const rows = page.rows.length
    const total = driver.totalOf(page)
    const capped = rows > remaining ? ({ ...page, rows: page.rows.slice(0, remaining) } as NotificationSearchResult) : page
    yield capped as SearchResultFor<C, S>
    read += Math.min(rows, remaining)
    start += rows
    // The service's default page size is learned from the first page when none was given.
    size ??= rows
    if (rows === 0 || (pageSize !== undefined && rows < pageSize) || start >= total) return
  }
}
