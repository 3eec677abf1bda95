import type { NotificationsConfig, NotificationsConfigInput, SolverId } from '../config/types.js'
import { ServiceRequestError } from '../errors/ServiceRequestError.js'
import { type SearchHttpOptions, postJson } from './postJson.js'
import { searchDrivers } from './searchDrivers.js'
import type { SearchOptions, SearchParamsFor, SearchResultFor } from './types.js'
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
  options: SearchOptions & SearchHttpOptions = {},
): Promise<SearchResultFor<C, S>> {
  const solver = config.getSolver({ chainId: params?.chainId, solverId: params?.solverId })
  const protocol = solver.notifications.protocol
  validateSearchParams(params, protocol, config.allowInsecureTransport)
  const driver = searchDrivers[protocol]
  const { url, body } = driver.request(solver, params)
  const json = await postJson(url, body, options)
  const result = driver.parse(json)
  if (typeof result === 'string') {
    throw new ServiceRequestError('INVALID_RESPONSE', `Search response from ${url} has the wrong shape: ${result}.`, { method: 'POST', url, status: 200, body: json })
  }
  return result as SearchResultFor<C, S>
}
