import type { Address } from '../utils/address.js'
import type { Protocol, ProtocolTypes } from './protocols.js'

export type { EnigmaSearchParams, EnigmaSearchResult } from './enigma/enigmaTypes.js'
export type { RasaSearchParams, RasaSearchResult } from './rasa/rasaTypes.js'

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

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

/**
 * Search parameters of every registered protocol at once (what a solver id not known at compile time takes).
 *
 * @example
 * const params: SearchNotificationsParams = { account, quoteId: 9565 }
 */
export type SearchNotificationsParams<Id extends string = string> = Omit<UnionToIntersection<ProtocolTypes[Protocol]['params']>, 'solverId'> & SearchParamsBase<Id>

/**
 * The `kind`-tagged union every search returns: one member per protocol.
 *
 * @example
 * switch (result.kind) { case 'enigma': …; case 'rasa': … }
 */
export type NotificationSearchResult = ProtocolTypes[Protocol]['result']
