import type { NotificationsConfigInput, RegisteredConfig, SearchParamsFor, SearchResultFor, ServiceError, SolverId } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type UseQueryOptions, type UseQueryReturnType, useQuery } from '@tanstack/vue-query'
import { type MaybeRefOrGetter, computed, toValue } from 'vue'
import { useNotificationsClient } from './useNotificationsClient.js'

/** Rendering on a server (no window): Nuxt's SSR, Vite SSR. */
const onServer = () => typeof window === 'undefined'

/**
 * Searches stored history with TanStack Query; `params` may be a ref or a getter, and the query
 * follows its changes. `data` is the `kind`-tagged result (or what `select` makes of it), `error` a
 * `ServiceError` (a `ServiceRequestError`, with status and url, when a request failed).
 *
 * @example
 * const { data } = useSearchNotifications(() => ({ solverId: 'beta', account: account.value, start: start.value }))
 */
export function useSearchNotifications<
  C extends NotificationsConfigInput = RegisteredConfig,
  const S extends SolverId<C> | undefined = undefined,
  TData = SearchResultFor<C, S>,
>(
  params: MaybeRefOrGetter<
    SearchParamsFor<C, S> & {
      // `select` spelled out, so TypeScript infers TData from it through the getter
      query?: Omit<UseQueryOptions<SearchResultFor<C, S>, ServiceError, TData>, 'queryKey' | 'queryFn' | 'select'> & { select?: (data: SearchResultFor<C, S>) => TData }
    }
  >,
): UseQueryReturnType<TData, ServiceError> {
  const client = useNotificationsClient<C>()
  const options = computed(() => {
    const { query, ...search } = toValue(params)
    // Server rendering (Nuxt) does not search unless asked: the query is off on the server by default,
    // so no request leaves while the HTML would say "pending". Opt in with `query: { enabled: true }`
    // and TanStack's prefetch + hydration (the package README shows it).
    return { ...searchNotificationsQueryOptions<C, S>(client, search as SearchParamsFor<C, S>), ...(onServer() ? { enabled: false } : {}), ...query }
  })
  return useQuery<SearchResultFor<C, S>, ServiceError, TData>(options as never)
}
