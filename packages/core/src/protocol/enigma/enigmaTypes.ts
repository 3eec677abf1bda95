import type { SearchParamsBase } from '../searchTypes.js'
import type { NotificationDocument, NotificationSearchFilter } from '../types.js'

/**
 * Notifications endpoint of an enigma solver: a per-account socket on a named channel, and an optional search service.
 *
 * @example
 * const n: ServiceEnigmaNotificationsConfig = { protocol: 'enigma', url: 'wss://host/ws/v1/subscribe', channel: 'Arbitrum_Solver_Production', searchUrl: 'https://host/notification' }
 */
export interface ServiceEnigmaNotificationsConfig {
  readonly protocol: 'enigma'
  readonly url: string
  readonly channel: string
  readonly searchUrl?: string
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
