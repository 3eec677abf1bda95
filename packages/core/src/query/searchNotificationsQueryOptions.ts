import type { NotificationsConfig, NotificationsConfigInput, SolverId } from '../config/types.js'
import { searchProtocols } from '../protocol/searchProtocols.js'
import type { SearchNotificationsParams, SearchParamsFor, SearchResultFor } from '../search/types.js'
import type { NotificationsClient } from '../client/createNotificationsClient.js'

/**
 * The TanStack Query key of a search: `['solver-notifications', 'search', params-with-defaults]`.
 * With a config, chain, solver and the protocol's default page size are filled in, so equal searches share a key.
 *
 * @example
 * queryClient.invalidateQueries({ queryKey: searchNotificationsQueryKey({ account }).slice(0, 2) })
 */
export function searchNotificationsQueryKey(params: SearchNotificationsParams, config?: NotificationsConfig<any>) {
  const withDefaults: Record<string, unknown> = { start: 0 }
  if (config) {
    // Adapters build keys during render: an unknown chain or solver must not throw here, it is the
    // query's error (the query function rejects with UNKNOWN_CHAIN / UNKNOWN_SOLVER).
    let solver: ReturnType<typeof config.getSolver> | undefined
    try {
      solver = config.getSolver({ chainId: params.chainId, solverId: params.solverId })
    } catch {
      solver = undefined
    }
    if (solver) {
      withDefaults.chainId = solver.chainId
      withDefaults.solverId = solver.solverId
      const size = searchProtocols[solver.notifications.protocol].defaultSize
      if (size !== undefined) withDefaults.size = size
    }
  }
  for (const [key, value] of Object.entries(params)) if (value !== undefined) withDefaults[key] = value
  // Sorted keys: the same search always serializes to the same key.
  const sorted = Object.fromEntries(Object.entries(withDefaults).sort(([a], [b]) => (a < b ? -1 : 1)))
  return ['solver-notifications', 'search', sorted] as const
}

/**
 * TanStack Query options for a search: key, query function (forwarding the abort signal) and
 * `retry: false` (the client already retries transport failures). Failed searches reject with `ServiceRequestError`. The one way adapters build queries.
 *
 * @example
 * const query = useQuery(searchNotificationsQueryOptions(client, { solverId: 'beta', account }))
 */
export function searchNotificationsQueryOptions<C extends NotificationsConfigInput, const S extends SolverId<C> | undefined = undefined>(
  client: NotificationsClient<C>,
  params: SearchParamsFor<C, S>,
) {
  return {
    queryKey: searchNotificationsQueryKey(params, client.config),
    queryFn: ({ signal }: { signal: AbortSignal }): Promise<SearchResultFor<C, S>> => client.search<S>(params, { signal }),
    retry: false as const,
  }
}
