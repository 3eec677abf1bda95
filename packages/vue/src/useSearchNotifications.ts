import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceRequestError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type UseQueryOptions, type UseQueryReturnType, useQuery } from '@tanstack/vue-query'
import { type MaybeRefOrGetter, computed, toValue } from 'vue'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Searches stored history with TanStack Query; `params` may be a ref or a getter, and the query
 * follows its changes. `data` is the `kind`-tagged result, `error` a `ServiceRequestError`.
 *
 * @example
 * const { data } = useSearchNotifications(() => ({ solverId: 'beta', account: account.value, start: start.value }))
 */
export function useSearchNotifications<C extends NotificationsConfigInput = RegisteredConfig, const S extends SolverId<C> | undefined = undefined>(
  params: MaybeRefOrGetter<
    SearchParamsFor<C, S> & { query?: Omit<UseQueryOptions<SearchResultFor<C, S>, ServiceRequestError>, 'queryKey' | 'queryFn'> }
  >,
): UseQueryReturnType<SearchResultFor<C, S>, ServiceRequestError> {
  const client = useNotificationsClient<C>()
  const options = computed(() => {
    const { query, ...search } = toValue(params)
    return { ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...query }
  })
  return useQuery<SearchResultFor<C, S>, ServiceRequestError>(options as never)
}
