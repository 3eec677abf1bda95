import type { Address } from '../utils/address.js'
import type { RawPositionNotification } from './rawNotification.js'
import type { Protocol } from './protocols.js'

export type { Protocol }
export type { RawPositionNotification } from './rawNotification.js'
export type { EnigmaNotificationEnvelope, NotificationDocument, NotificationSearchFilter, RawEnigmaPositionNotification } from './enigma/enigmaTypes.js'
export type { PositionStateResponseSchema, RawRasaPositionNotification } from './rasa/rasaTypes.js'

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
