import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceRequestError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type CreateQueryOptions, type CreateQueryResult, createQuery } from '@tanstack/svelte-query'
import { getNotificationsClient } from './context.js'

/**
 * Searches stored history with TanStack Query; pass params as a function so the query follows them.
 * `data` is the `kind`-tagged result, `error` a `ServiceRequestError`.
 *
 * @example
 * const search = useSearchNotifications(() => ({ solverId: 'beta', account, start }))
 * // {#if search.data?.kind === 'rasa'}…
 */
export function useSearchNotifications<C extends NotificationsConfigInput = RegisteredConfig, const S extends SolverId<C> | undefined = undefined>(
  params: () => SearchParamsFor<C, S> & { query?: Omit<CreateQueryOptions<SearchResultFor<C, S>, ServiceRequestError>, 'queryKey' | 'queryFn'> },
): CreateQueryResult<SearchResultFor<C, S>, ServiceRequestError> {
  const client = getNotificationsClient<C>()
  return createQuery<SearchResultFor<C, S>, ServiceRequestError>(() => {
    const { query, ...search } = params()
    return { ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...query } as never
  })
}
