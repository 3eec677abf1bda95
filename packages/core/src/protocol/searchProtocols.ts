import { enigmaSearch } from './enigma/enigmaSearch.js'
import type { ProtocolSearch } from './ProtocolModule.js'
import { rasaSearch } from './rasa/rasaSearch.js'
import type { WireFrame } from './frame.js'
import type { SearchParamsBase } from './searchParamsBase.js'

/** The search halves built in; every search type (params, the result union) is derived from this value. */
const builtInSearches = { enigma: enigmaSearch, rasa: rasaSearch }

/** Each built-in protocol's search half, by name, as typed by its own module. */
export type BuiltInSearches = typeof builtInSearches

/** The `kind`-tagged result of each built-in protocol's search, read off its module. */
export type SearchResultOf<S> = S extends ProtocolSearch<WireFrame, unknown, SearchParamsBase, infer R> ? R : never
/** The search parameters of each built-in protocol, read off its module. */
export type SearchParamsOf<S> = S extends ProtocolSearch<WireFrame, unknown, infer P> ? P : never

/** A search half as the search client, paging and backfill use it: any protocol's, its result one of the union. */
export type AnyProtocolSearch = ProtocolSearch<WireFrame, unknown, SearchParamsBase, SearchResultOf<BuiltInSearches[keyof BuiltInSearches]>>

/**
 * The registry of search halves at run time: the one place search, paging, backfill and the query
 * factories look a protocol's history up (apart from the wire registry, so a live-only bundle carries
 * no search code). `registerProtocol` adds to it.
 */
export const searchProtocols: Record<keyof BuiltInSearches, AnyProtocolSearch> = builtInSearches
