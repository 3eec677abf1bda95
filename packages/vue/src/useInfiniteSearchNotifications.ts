import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsInfiniteQueryOptions } from '@solver-notifications/core/query'
import { type InfiniteData, type UseInfiniteQueryReturnType, useInfiniteQuery } from '@tanstack/vue-query'
import { type MaybeRefOrGetter, computed, toValue } from 'vue'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Pages through stored history with TanStack's infinite queries (100 rows a page unless `size` is
 * given); `params` may be a ref or a getter. `data.pages` holds the pages so far, `fetchNextPage()`
 * reads the next.
 *
 * @example
 * const { data, fetchNextPage, hasNextPage } = useInfiniteSearchNotifications(() => ({ solverId: 'beta', account: account.value }))
 */
export function useInfiniteSearchNotifications<C extends NotificationsConfigInput = RegisteredConfig, const S extends SolverId<C> | undefined = undefined>(
  params: MaybeRefOrGetter<SearchParamsFor<C, S> & { query?: { enabled?: boolean; staleTime?: number } }>,
): UseInfiniteQueryReturnType<InfiniteData<SearchResultFor<C, S>, number>, ServiceError> {
  const client = useNotificationsClient<C>()
  const options = computed(() => {
    const { query, ...search } = toValue(params)
    return { ...searchNotificationsInfiniteQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...query }
  })
  return useInfiniteQuery(options as never) as UseInfiniteQueryReturnType<InfiniteData<SearchResultFor<C, S>, number>, ServiceError>
}
