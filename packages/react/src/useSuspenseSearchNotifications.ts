import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type UseSuspenseQueryOptions, type UseSuspenseQueryResult, useSuspenseQuery } from '@tanstack/react-query'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * `useSearchNotifications` for React Suspense: the component suspends until the first page is in,
 * then `data` is always defined; a failure goes to the nearest error boundary.
 *
 * @example
 * const { data } = useSuspenseSearchNotifications({ solverId: 'beta', account }) // data.rows
 */
export function useSuspenseSearchNotifications<
  C extends NotificationsConfigInput = RegisteredConfig,
  const S extends SolverId<C> | undefined = undefined,
  TData = SearchResultFor<C, S>,
>(
  params: SearchParamsFor<C, S> & {
    query?: Omit<UseSuspenseQueryOptions<SearchResultFor<C, S>, ServiceError, TData>, 'queryKey' | 'queryFn'>
  },
): UseSuspenseQueryResult<TData, ServiceError> {
  const client = useNotificationsClient<C>()
  const { query, ...search } = params
  return useSuspenseQuery<SearchResultFor<C, S>, ServiceError, TData>({
    ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>),
    ...query,
  })
}
