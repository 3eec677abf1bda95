import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsInfiniteQueryOptions } from '@solver-notifications/core/query'
import { type CreateInfiniteQueryResult, type InfiniteData, createInfiniteQuery } from '@tanstack/svelte-query'
import { getNotificationsClient } from './context.js'

/**
 * Pages through stored history with TanStack's infinite queries (100 rows a page unless `size` is
 * given); pass params as a function so the query follows them. `data.pages` holds the pages so far,
 * `fetchNextPage()` reads the next.
 *
 * @example
 * const pages = useInfiniteSearchNotifications(() => ({ solverId: 'beta', account }))
 * // {#each pages.data?.pages ?? [] as page}…{/each} <button onclick={() => pages.fetchNextPage()}>more</button>
 */
export function useInfiniteSearchNotifications<C extends NotificationsConfigInput = RegisteredConfig, const S extends SolverId<C> | undefined = undefined>(
  params: () => SearchParamsFor<C, S> & { query?: { enabled?: boolean; staleTime?: number } },
): CreateInfiniteQueryResult<InfiniteData<SearchResultFor<C, S>, number>, ServiceError> {
  const client = getNotificationsClient<C>()
  return createInfiniteQuery(() => {
    const { query, ...search } = params()
    return { ...searchNotificationsInfiniteQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...query } as never
  }) as CreateInfiniteQueryResult<InfiniteData<SearchResultFor<C, S>, number>, ServiceError>
}
