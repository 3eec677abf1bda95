import type { ResolvedSolver } from '../config/types.js'
import { ServiceError, isServiceError } from '../errors/ServiceError.js'
import { searchProtocols } from '../protocol/searchProtocols.js'

/**
 * Why a solver's history cannot be read (no `searchUrl` on an enigma solver, no `url` on a rasa one),
 * or undefined when it can. Resume, quote books and `waitFor` ask this first, so they fail at once
 * with `SEARCH_URL_NOT_CONFIGURED` instead of retrying a search that can never be sent.
 */
export function searchUnavailable(solver: ResolvedSolver): ServiceError | undefined {
  try {
    // The protocol's own request builder is the one place that knows which URL a search needs.
    searchProtocols[solver.notifications.protocol].request(solver, {})
    return undefined
  } catch (error) {
    if (!isServiceError(error) || error.code !== 'SEARCH_URL_NOT_CONFIGURED') throw error
    return new ServiceError(
      'SEARCH_URL_NOT_CONFIGURED',
      `${error.message} Resume streams, quote books and waitFor read history: they cannot run on this solver; live streams without resume can.`,
    )
  }
}
