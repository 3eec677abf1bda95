import type { NotificationsConfigInput, SolverId, SolverProtocol } from '../config/types.js'
import type { Protocol, ProtocolTypes } from '../protocol/protocols.js'
import type { NotificationSearchResult, SearchNotificationsParams, SearchParamsBase } from '../protocol/searchTypes.js'

// The parameter and result types live with the protocols that build and parse them.
export type * from '../protocol/searchTypes.js'

type ResultOf<P> = P extends Protocol ? ProtocolTypes[P]['result'] : never

/**
 * The result type for a (literal) solver id of a config: narrowed when the id's protocol is known.
 *
 * @example
 * type R = SearchResultFor<typeof config, 'beta'> // RasaSearchResult
 */
export type SearchResultFor<C extends NotificationsConfigInput, S> = [S] extends [undefined]
  ? NotificationSearchResult
  : string extends S
    ? NotificationSearchResult
    : ResultOf<SolverProtocol<C, S>>

/** One protocol's parameters, with every other protocol's own parameters made type errors. */
type OnlyParamsOf<P extends Protocol, Id extends string> = Omit<ProtocolTypes[P]['params'], 'solverId'> &
  SearchParamsBase<Id> & { [K in Exclude<keyof SearchNotificationsParams, keyof ProtocolTypes[P]['params']>]?: never }

type IsSingle<P, All = P> = P extends unknown ? ([All] extends [P] ? true : false) : never

type ParamsOf<P, Id extends string> = [P] extends [Protocol] ? (IsSingle<P> extends true ? OnlyParamsOf<P, Id> : SearchNotificationsParams<Id>) : SearchNotificationsParams<Id>

/**
 * The parameters for a (literal) solver id: the other protocol's parameters are type errors.
 *
 * @example
 * client.search({ solverId: 'beta', filter: {} }) // type error: rasa has no filter
 */
export type SearchParamsFor<C extends NotificationsConfigInput, S> = [S] extends [undefined]
  ? SearchNotificationsParams<SolverId<C>>
  : string extends S
    ? SearchNotificationsParams<SolverId<C>>
    : ParamsOf<SolverProtocol<C, S>, SolverId<C>> & { solverId: S }

/**
 * Per-call options of a search.
 *
 * @example
 * await client.search(params, { signal: AbortSignal.timeout(2_000) })
 */
export interface SearchOptions {
  signal?: AbortSignal | undefined
}

/**
 * Hears each history request an app's search makes (the client's diagnostics seam listens through it):
 * called as the request starts, it returns what to call when it ended (with the error when it failed).
 *
 * @internal
 * @example
 * const observe: SearchObserver = ({ destination }) => (error) => console.log(destination, error ? 'failed' : 'ok')
 */
export type SearchObserver = (start: { readonly protocol: string; readonly destination: string; readonly url: string }) => ((error?: { code?: string; status?: number }) => void) | undefined

/**
 * Options of `searchPages`: stop after `maxRows` rows.
 *
 * @example
 * for await (const page of client.searchPages(params, { maxRows: 500 })) render(page.rows)
 */
export interface SearchPagesOptions extends SearchOptions {
  maxRows?: number | undefined
}
