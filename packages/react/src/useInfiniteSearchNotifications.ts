import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsInfiniteQueryOptions } from '@solver-notifications/core/query'
import { type InfiniteData, type UseInfiniteQueryResult, useInfiniteQuery } from '@tanstack/react-query'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Pages through stored history with TanStack's infinite queries (100 rows a page unless `size` is
 * given): `data.pages` holds the pages so far, `fetchNextPage()` reads the next, `hasNextPage` says
 * whether the service has more.
 *
 * @example
 * const { data, fetchNextPage, hasNextPage } = useInfiniteSearchNotifications({ solverId: 'beta', account })
 */
export function useInfiniteSearchNotifications<
  C extends NotificationsConfigInput = RegisteredConfig,
  const S extends SolverId<C> | undefined = undefined,
>(params: SearchParamsFor<C, S> & { query?: { enabled?: boolean; staleTime?: number } }): UseInfiniteQueryResult<InfiniteData<SearchResultFor<C, S>, number>, ServiceError> {
  const client = useNotificationsClient<C>()
  const { query, ...search } = params
  return useInfiniteQuery({ ...searchNotificationsInfiniteQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...query }) as UseInfiniteQueryResult<
    InfiniteData<SearchResultFor<C, S>, number>,
    ServiceError
  >
}
