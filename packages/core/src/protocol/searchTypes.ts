import type { NotificationDocument, NotificationSearchFilter, PositionStateResponseSchema } from './types.js'
import type { Address } from '../utils/address.js'

/**
 * Parameters every search takes, whatever the protocol.
 *
 * @example
 * const params: SearchParamsBase = { account: '0x1111111111111111111111111111111111111111', size: 50 }
 */
export interface SearchParamsBase<Id extends string = string> {
  solverId?: Id | undefined
  chainId?: number | undefined
  account?: Address | undefined
  quoteId?: number | undefined
  start?: number | undefined
  size?: number | undefined
}

/**
 * enigma search parameters: exact-equality `filter`s, `tempQuoteId` and a `baseUrl` override.
 *
 * @example
 * const params: EnigmaSearchParams = { solverId: 'alpha', filter: { 'data.action_status': 'failed' } }
 */
export interface EnigmaSearchParams<Id extends string = string> extends SearchParamsBase<Id> {
  tempQuoteId?: number | undefined
  filter?: NotificationSearchFilter | undefined
  baseUrl?: string | undefined
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
 * Search parameters of either protocol (what a solver id not known at compile time takes).
 *
 * @example
 * const params: SearchNotificationsParams = { account, quoteId: 9565 }
 */
export interface SearchNotificationsParams<Id extends string = string> extends EnigmaSearchParams<Id>, RasaSearchParams<Id> {}

/**
 * An enigma search page: `total` matches, `count` rows in this page, the stored documents.
 *
 * @example
 * if (result.kind === 'enigma') console.log(result.total)
 */
export interface EnigmaSearchResult {
  kind: 'enigma'
  total: number
  count: number
  rows: NotificationDocument[]
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
 * The `kind`-tagged union every search returns.
 *
 * @example
 * switch (result.kind) { case 'enigma': …; case 'rasa': … }
 */
export type NotificationSearchResult = EnigmaSearchResult | RasaSearchResult
