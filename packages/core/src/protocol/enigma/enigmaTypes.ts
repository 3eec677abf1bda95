import type { RawPositionNotification } from '../rawNotification.js'
import type { SearchParamsBase } from '../searchParamsBase.js'

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

/**
 * An enigma frame: the base fields plus `va_address`, `failure_message` and `version`.
 *
 * @example
 * const raw: RawEnigmaPositionNotification = { quote_id: 1, va_address: '0x…', version: 3 }
 */
export interface RawEnigmaPositionNotification extends RawPositionNotification {
  va_address?: string | null
  failure_message?: string | null
  version?: number | null
}

/**
 * The envelope enigma wraps every frame in; `data` may arrive as an object or a JSON string.
 *
 * @example
 * const env: EnigmaNotificationEnvelope = { app_name: 'Arbitrum_Solver_Production', primary_identifier: 9565, secondary_identifier: -12, address: '0x…', data: {} }
 */
export interface EnigmaNotificationEnvelope {
  app_name?: string
  primary_identifier?: number | null
  secondary_identifier?: number | null
  address?: string
  data: RawEnigmaPositionNotification | string
  [extra: string]: unknown
}

/**
 * An enigma stored document, as the search service returns it.
 *
 * @example
 * const doc: NotificationDocument = { id: 'a1', app_name: 'X', address: '0x…', primary_identifier: 1, secondary_identifier: null, create_time: 1, modify_time: 1, data: {} }
 */
export interface NotificationDocument {
  id?: string
  app_name?: string
  address?: string
  primary_identifier?: number | null
  secondary_identifier?: number | null
  create_time?: number | null
  modify_time?: number | null
  data: RawEnigmaPositionNotification
  [extra: string]: unknown
}

/**
 * Exact-equality filters for enigma search: top-level document fields or dotted `data.*` paths.
 *
 * @example
 * const filter: NotificationSearchFilter = { 'data.action_status': 'failed' }
 */
export type NotificationSearchFilter = Record<string, string | number | boolean | null>
