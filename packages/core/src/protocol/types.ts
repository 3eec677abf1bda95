import type { Protocol } from './protocols.js'
import type { Address } from '../utils/address.js'

export type { Protocol }

/**
 * A raw position-state frame as a solver sends it (snake_case, every field optional on the wire).
 * Unknown extra fields are kept.
 *
 * @example
 * const raw: RawPositionNotification = { quote_id: 9565, action_status: 'success', last_seen_action: 'SendQuote' }
 */
export interface RawPositionNotification {
  id?: string | null
  quote_id?: number | null
  temp_quote_id?: number | null
  create_time?: number | null
  modify_time?: number | null
  counterparty_address?: string | null
  filled_amount_open?: string | number | null
  filled_amount_close?: string | number | null
  avg_price_open?: string | number | null
  avg_price_close?: string | number | null
  last_seen_action?: string | null
  action_status?: string | null
  failure_type?: string | null
  error_code?: number | null
  state_type?: 'report' | 'alert' | (string & {}) | null
  [extra: string]: unknown
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
 * A rasa frame: the base fields plus `order_type`.
 *
 * @example
 * const raw: RawRasaPositionNotification = { quote_id: -12, temp_quote_id: -12, order_type: 1 }
 */
export interface RawRasaPositionNotification extends RawPositionNotification {
  order_type?: number | null
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
 * Outcome of a transition, from `action_status`.
 *
 * @example
 * const type: NotificationType = classifyNotification('failed') // 'failed'
 */
export type NotificationType = 'success' | 'failed' | 'seen' | 'unknown'

/**
 * Lifecycle phase of a transition, from `last_seen_action` (and `fill` for open-phase reports with a filled amount).
 *
 * @example
 * const phase: NotificationPhase = classifyPhase('RequestToClosePosition') // 'close'
 */
export type NotificationPhase = 'open' | 'fill' | 'close' | 'cancel' | 'liquidation' | 'other'

/**
 * One normalized, immutable notification: the same shape for both protocols.
 *
 * @example
 * client.notifications({ account }).subscribe((n: Notification) => console.log(n.quoteId, n.type, n.phase))
 */
export interface Notification {
  readonly type: NotificationType
  readonly phase: NotificationPhase
  readonly quoteId: number
  readonly tempQuoteId: number | null
  readonly onChain: boolean
  readonly lastSeenAction: string | null
  readonly actionStatus: string | null
  readonly account: Address
  readonly counterpartyAddress: string | null
  readonly stateType: string | null
  readonly failureType: string | null
  readonly failureMessage: string | null
  readonly errorCode: number | null
  readonly filledAmountOpen: string | null
  readonly filledAmountClose: string | null
  readonly avgPriceOpen: string | null
  readonly avgPriceClose: string | null
  readonly orderType: number | null
  readonly version: number | null
  readonly vaAddress: string | null
  readonly createTime: number | null
  readonly modifyTime: number | null
  readonly id: string | null
  readonly protocol: Protocol
  readonly chainId: number
  readonly solverId: string
  readonly source: 'live' | 'backfill'
  readonly raw: Readonly<RawPositionNotification>
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
 * A rasa stored position state (the latest state per quote), as `/position-state` returns it.
 *
 * @example
 * const row: PositionStateResponseSchema = { quote_id: 7, counterparty_address: '0x…', action_status: 'success' }
 */
export type PositionStateResponseSchema = RawRasaPositionNotification

/**
 * Exact-equality filters for enigma search: top-level document fields or dotted `data.*` paths.
 *
 * @example
 * const filter: NotificationSearchFilter = { 'data.action_status': 'failed' }
 */
export type NotificationSearchFilter = Record<string, string | number | boolean | null>
