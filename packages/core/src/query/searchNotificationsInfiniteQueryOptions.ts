import type { NotificationsConfigInput, SolverId } from '../config/types.js'
import type { NotificationsClient } from '../client/createNotificationsClient.js'
import type { SearchParamsFor, SearchResultFor } from '../search/types.js'
import { searchProtocols } from '../protocol/searchProtocols.js'
import { searchNotificationsQueryKey } from './searchNotificationsQueryOptions.js'

/** Rows per page of an infinite search when `size` is not given (the rasa endpoint's maximum). */
const PAGE_SIZE = 100

/**
 * TanStack Query options for an infinite (paged) search: pages walk `start` forward by the page size
 * (100 unless `size` is given) until the service's count is reached or a page comes back short. The
 * one way adapters build infinite queries.
 *
 * @example
 * const pages = useInfiniteQuery(searchNotificationsInfiniteQueryOptions(client, { solverId: 'beta', account }))
 */
export function searchNotificationsInfiniteQueryOptions<C extends NotificationsConfigInput, const S extends SolverId<C> | undefined = undefined>(
  client: NotificationsClient<C>,
  params: SearchParamsFor<C, S>,
) {
  const size = params.size ?? PAGE_SIZE
  const [scope, , key] = searchNotificationsQueryKey({ ...params, size }, client.config)
  return {
    queryKey: [scope, 'search-pages', key] as const,
    queryFn: ({ signal, pageParam }: { signal: AbortSignal; pageParam: number }): Promise<SearchResultFor<C, S>> =>
      client.search<S>({ ...params, start: pageParam, size } as SearchParamsFor<C, S>, { signal }),
    initialPageParam: params.start ?? 0,
    getNextPageParam: (last: SearchResultFor<C, S>, _all: unknown, lastStart: number): number | undefined => {
      const total = searchProtocols[last.kind].totalOf(last)
      const next = lastStart + last.rows.length
      return last.rows.length < size || next >= total ? undefined : next
    },
    retry: false as const,
  }
}
