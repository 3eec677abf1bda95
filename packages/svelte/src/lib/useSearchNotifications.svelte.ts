import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type CreateQueryOptions, type CreateQueryResult, createQuery } from '@tanstack/svelte-query'
import { getNotificationsClient } from './context.js'

/**
 * Searches stored history with TanStack Query; pass params as a function so the query follows them.
 * `data` is the `kind`-tagged result (or what `select` makes of it), `error` a `ServiceError` (a
 * `ServiceRequestError`, with status and url, when a request failed).
 *
 * @example
 * const search = useSearchNotifications(() => ({ solverId: 'beta', account, start }))
 * // {#if search.data?.kind === 'rasa'}…
 */
export function useSearchNotifications<
  C extends NotificationsConfigInput = RegisteredConfig,
  const S extends SolverId<C> | undefined = undefined,
  TData = SearchResultFor<C, S>,
>(
  params: () => SearchParamsFor<C, S> & {
    // `select` spelled out, so TypeScript infers TData from it through the params function
    query?: Omit<CreateQueryOptions<SearchResultFor<C, S>, ServiceError, TData>, 'queryKey' | 'queryFn' | 'select'> & { select?: (data: SearchResultFor<C, S>) => TData }
  },
): CreateQueryResult<TData, ServiceError> {
  const client = getNotificationsClient<C>()
  return createQuery<SearchResultFor<C, S>, ServiceError, TData>(() => {
    const { query, ...search } = params()
    return { ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...query } as never
  })
}
