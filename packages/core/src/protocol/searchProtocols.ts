import { enigmaSearch } from './enigma/enigmaSearch.js'
import type { Protocol } from './protocols.js'
import type { ProtocolSearch } from './ProtocolModule.js'
import { rasaSearch } from './rasa/rasaSearch.js'

/**
 * The registry of search halves at run time: the one place search, paging, backfill and the query
 * factories look a protocol's history up (apart from the wire registry, so a live-only bundle carries
 * no search code).
 */
export const searchProtocols: Readonly<Record<Protocol, ProtocolSearch>> = { enigma: enigmaSearch, rasa: rasaSearch }
