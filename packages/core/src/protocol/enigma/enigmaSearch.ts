import { ServiceError } from '../../errors/ServiceError.js'
import { joinUrl } from '../../utils/joinUrl.js'
import { isPlainObject, parseJson } from '../frame.js'
import type { WireFrame } from '../frame.js'
import type { ProtocolSearch } from '../ProtocolModule.js'
import { findInvalidEnigmaField } from './enigmaFields.js'
import { enigmaFrame } from './enigmaFrame.js'
import type { EnigmaSearchParams, EnigmaSearchResult, NotificationDocument, ServiceEnigmaNotificationsConfig } from './enigmaTypes.js'

/**
 * enigma history (docs/protocols.md, "enigma"): a document store searched by equality filters, in no
 * promised order; each document holds the envelope's identifiers and the frame as `data`.
 */
export const enigmaSearch: ProtocolSearch<WireFrame, NotificationDocument, EnigmaSearchParams, EnigmaSearchResult, ServiceEnigmaNotificationsConfig> = {
  decodeStored(doc) {
    // Some services store `data` as a JSON string (checkRow lets it through); the document's own
    // top-level fields are the envelope's.
    const data: unknown = typeof doc.data === 'string' ? parseJson(doc.data) : doc.data
    return enigmaFrame(isPlainObject(data) ? data : {}, doc)
  },
  defaultSize: undefined,
  pageSize: 100,
  maxSize: undefined,
  newestFirst: false,
  request(solver, params) {
    const base = params.baseUrl ?? solver.notifications.searchUrl
    if (!base) {
      throw new ServiceError(
        'SEARCH_URL_NOT_CONFIGURED',
        `Solver "${solver.solverId}" on chain ${solver.chainId} has no notifications.searchUrl; add it to the config or pass baseUrl.`,
      )
    }
    const query: Record<string, unknown> = { ...params.filter }
    if (params.account !== undefined) query.address = params.account
    if (params.quoteId !== undefined) query['data.quote_id'] = params.quoteId
    if (params.tempQuoteId !== undefined) query['data.temp_quote_id'] = params.tempQuoteId
    const body: Record<string, unknown> = { query, start: params.start ?? 0 }
    if (params.size !== undefined) body.size = params.size
    return { url: joinUrl(base, '/api/v1/search'), body }
  },
  // The service omits `data` when nothing matched.
  envelope: { rows: 'data', rowsOptional: true, numbers: ['total', 'count'] },
  checkRow(row) {
    if (!isPlainObject(row)) return 'is not an object'
    const data = row.data
    if (typeof data === 'string') return undefined // stored as a JSON string by some services; decodeStored parses it
    if (!isPlainObject(data)) return '.data is not an object'
    const bad = findInvalidEnigmaField(data)
    return bad === undefined ? undefined : `.data.${bad} has the wrong type`
  },
  // The envelope's number fields were checked by the search client against `envelope.numbers`.
  result: (envelope, rows) => ({ kind: 'enigma', total: Number(envelope.total), count: Number(envelope.count), rows }),
  totalOf: (result) => result.total,
  // Equality filters only and no promised order: read the account's documents and filter by time here.
  backfillParams: (account) => ({ account }),
  // Frames before anchoring carry quote_id 0: a quote known by its temporary id is found by that.
  quoteParams: (account, { quoteId, tempQuoteId }) => (tempQuoteId !== undefined ? { account, tempQuoteId } : { account, quoteId }),
}
