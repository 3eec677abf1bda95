import type { RawPositionNotification } from '../rawNotification.js'
import type { SearchParamsBase } from '../searchParamsBase.js'

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

/**
 * A rasa frame: the base fields plus `order_type`.
 *
 * @example
 * const raw: RawRasaPositionNotification = { quote_id: -12, temp_quote_id: -12, order_type: 1 }
 */
export interface RawRasaPositionNotification extends RawPositionNotification {
  order_type?: number | null
}

/**
 * A rasa stored position state (the latest state per quote), as `/position-state` returns it.
 *
 * @example
 * const row: PositionStateResponseSchema = { quote_id: 7, counterparty_address: '0x…', action_status: 'success' }
 */
export type PositionStateResponseSchema = RawRasaPositionNotification
