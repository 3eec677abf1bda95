import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver, SolverId } from '../config/types.js'
import { ServiceRequestError } from '../errors/ServiceRequestError.js'
import { searchProtocols } from '../protocol/searchProtocols.js'
import type { NotificationSearchResult, SearchNotificationsParams } from '../protocol/searchTypes.js'
import { redactUrl } from '../utils/redactUrl.js'
import { parseSearchResponse } from './parseSearchResponse.js'
import { type SearchHttpOptions, postJson } from './postJson.js'
import type { SearchObserver, SearchOptions, SearchParamsFor, SearchResultFor } from './types.js'
import { validateSearchParams } from './validateSearchParams.js'

/**
 * Searches stored notifications of a solver, dispatching on its protocol; returns a `kind`-tagged
 * result narrowed by a literal `solverId`. Bad parameters reject with `INVALID_PARAMETERS` before any request.
 *
 * @example
 * const result = await searchNotifications(config, { solverId: 'beta', account })
 * result.rows // PositionStateResponseSchema[]
 */
export async function searchNotifications<C extends NotificationsConfigInput, S extends SolverId<C> | undefined = undefined>(
  config: NotificationsConfig<C>,
  params: SearchParamsFor<C, S>,
  options: SearchOptions & SearchHttpOptions & { observe?: SearchObserver | undefined } = {},
): Promise<SearchResultFor<C, S>> {
  const solver = config.getSolver({ chainId: params?.chainId, solverId: params?.solverId })
  validateSearchParams(params, searchProtocols[solver.notifications.protocol], config.allowInsecureTransport)
  return (await searchSolver(solver, params, options)) as SearchResultFor<C, S>
}

/** One search against an already resolved solver with validated parameters: the path pages and backfill share. */
export async function searchSolver(
  solver: ResolvedSolver,
  params: SearchNotificationsParams,
  options: SearchOptions & SearchHttpOptions & { longPages?: 'allow'; observe?: SearchObserver | undefined },
): Promise<NotificationSearchResult> {
  const { protocol } = solver.notifications
  const search = searchProtocols[protocol]
  const { url, body } = search.request(solver, params)
  // An app's search is heard by the diagnostics seam, when it listens (docs/guide/observability.md).
  const done = options.observe?.({ protocol, destination: `${solver.chainId}.${solver.solverId}`, url: redactUrl(url) })
  try {
    const result = await request(solver, params, options, url, body)
    done?.()
    return result
  } catch (error) {
    done?.((error ?? {}) as { code?: string })
    throw error
  }
}

async function request(solver: ResolvedSolver, params: SearchNotificationsParams, options: SearchOptions & SearchHttpOptions & { longPages?: 'allow' }, url: string, body: unknown): Promise<NotificationSearchResult> {
  const { protocol } = solver.notifications
  const search = searchProtocols[protocol]
  const { auth } = options
  // The solver's config headers, then what auth.headers says now (asked before every attempt).
  const headers =
    solver.headers || auth?.headers
      ? async () => {
          const fromAuth = auth?.headers ? await auth.headers({ chainId: solver.chainId, solverId: solver.solverId, protocol, url }) : undefined
          return solver.headers || fromAuth ? { ...solver.headers, ...fromAuth } : undefined
        }
      : undefined
  const json = await postJson(url, body, { ...options, headers })
  const result = parseSearchResponse(search, json)
  if (typeof result === 'string') {
    const shown = redactUrl(url)
    throw new ServiceRequestError('INVALID_RESPONSE', `Search response from ${shown} has the wrong shape: ${result}.`, { method: 'POST', url: shown, status: 200, body: json })
  }
  // A page longer than asked is not believed: a service that ignores `size` could hand over anything.
  const asked = params.size ?? search.defaultSize
  if (options.longPages !== 'allow' && asked !== undefined && result.rows.length > asked) {
    const shown = redactUrl(url)
    throw new ServiceRequestError('INVALID_RESPONSE', `Search response from ${shown} has ${result.rows.length} rows for a page of size ${asked}: the service ignores size, so its pages are not trusted. Fix the service or the configured URL.`, { method: 'POST', url: shown, status: 200, body: json })
  }
  return result
}
