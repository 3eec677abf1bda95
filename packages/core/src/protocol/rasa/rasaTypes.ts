import type { SearchParamsBase } from '../searchTypes.js'
import type { PositionStateResponseSchema } from '../types.js'

/**
 * Notifications endpoint of a rasa solver: one hub socket for every account.
 *
 * @example
 * const n: ServiceRasaNotificationsConfig = { protocol: 'rasa', url: 'wss://host/ws/position-state-ws3' }
 */
export interface ServiceRasaNotificationsConfig {
  readonly protocol: 'rasa'
  readonly url: string
}

/**
 * rasa search parameters: `timestampGte` filters on `modify_time`.
 *
 * @example
 * const params: RasaSearchParams = { solverId: 'beta', timestampGte: 1_763_700_000 }
 */
export interface RasaSearchParams<Id extends string = string> extends SearchParamsBase<Id> {
  timestampGte?: number | undefined
}

/**
 * A rasa search page: `count` as the service reports it, the latest position states.
 *
 * @example
 * if (result.kind === 'rasa') console.log(result.rows[0]?.quote_id)
 */
export interface RasaSearchResult {
  kind: 'rasa'
  count: number
  rows: PositionStateResponseSchema[]
}
