import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type UseQueryOptions, type UseQueryResult, useQuery } from '@tanstack/react-query'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Searches stored history with TanStack Query: `data` is the `kind`-tagged result (or what `select`
 * makes of it), `error` a `ServiceError` (a `ServiceRequestError`, with status and url, when a request
 * failed); `query` passes overrides (e.g. `enabled`, `staleTime`, `select`) to TanStack.
 *
 * @example
 * const { data } = useSearchNotifications({ solverId: 'beta', account, query: { staleTime: 10_000 } })
 */
export function useSearchNotifications<
  C extends NotificationsConfigInput = RegisteredConfig,
  const S extends SolverId<C> | undefined = undefined,
  TData = SearchResultFor<C, S>,
>(
  params: SearchParamsFor<C, S> & {
    query?: Omit<UseQueryOptions<SearchResultFor<C, S>, ServiceError, TData>, 'queryKey' | 'queryFn'>
  },
): UseQueryResult<TData, ServiceError> {
  const client = useNotificationsClient<C>()
  const { query, ...search } = params
  return useQuery<SearchResultFor<C, S>, ServiceError, TData>({
    ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>),
    ...query,
  })
}
