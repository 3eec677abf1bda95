import type { Protocol, ProtocolTypes } from './protocols.js'
import type { SearchParamsBase } from './searchParamsBase.js'

export type { EnigmaSearchParams, EnigmaSearchResult } from './enigma/enigmaTypes.js'
export type { RasaSearchParams, RasaSearchResult } from './rasa/rasaTypes.js'
export type { SearchParamsBase } from './searchParamsBase.js'

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
