import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceRequestError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type UseQueryOptions, type UseQueryResult, useQuery } from '@tanstack/react-query'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Searches stored history with TanStack Query: `data` is the `kind`-tagged result, `error` a
 * `ServiceRequestError`; `query` passes overrides (e.g. `enabled`, `staleTime`) to TanStack.
 *
 * @example
 * const { data } = useSearchNotifications({ solverId: 'beta', account, query: { staleTime: 10_000 } })
 */
export function useSearchNotifications<C extends NotificationsConfigInput = RegisteredConfig, const S extends SolverId<C> | undefined = undefined>(
  params: SearchParamsFor<C, S> & {
    query?: Omit<UseQueryOptions<SearchResultFor<C, S>, ServiceRequestError>, 'queryKey' | 'queryFn'>
  },
): UseQueryResult<SearchResultFor<C, S>, ServiceRequestError> {
  const client = useNotificationsClient<C>()
  const { query, ...search } = params
  return useQuery<SearchResultFor<C, S>, ServiceRequestError>({
    ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>),
    ...query,
  })
}
