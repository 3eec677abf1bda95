import { ServiceError } from '../../errors/ServiceError.js'
import { joinUrl } from '../../utils/joinUrl.js'
import { type WireFrame, isPlainObject } from '../frame.js'
import type { ProtocolSearch } from '../ProtocolModule.js'
import { findInvalidRasaField } from './rasaFields.js'
import { rasaFrame } from './rasaFrame.js'
import type { PositionStateResponseSchema, RasaSearchParams, RasaSearchResult, ServiceRasaNotificationsConfig } from './rasaTypes.js'

/** The `/position-state/{start}/{size}` endpoint answers at most this many rows. */
const RASA_MAX_SIZE = 100

/**
 * rasa history (docs/protocols.md, "rasa"): the latest state per quote, newest `modify_time` first,
 * from the solver's own HTTP API.
 */
export const rasaSearch: ProtocolSearch<WireFrame, PositionStateResponseSchema, RasaSearchParams, RasaSearchResult, ServiceRasaNotificationsConfig> = {
  decodeStored: rasaFrame,
  defaultSize: RASA_MAX_SIZE,
  pageSize: RASA_MAX_SIZE,
  maxSize: RASA_MAX_SIZE,
  newestFirst: true,
  latestStateOnly: true,
  request(solver, params) {
    if (!solver.url) {
      throw new ServiceError(
        'SEARCH_URL_NOT_CONFIGURED',
        `Solver "${solver.solverId}" on chain ${solver.chainId} has no url; rasa search goes to the solver's own HTTP API, add its url to the config.`,
      )
    }
    const start = params.start ?? 0
    const size = params.size ?? RASA_MAX_SIZE
    return {
      url: joinUrl(solver.url, `/position-state/${start}/${size}`),
      body: { address: params.account ?? null, quote_id: params.quoteId ?? null, create_time_gte: null, modify_time_gte: params.timestampGte ?? null },
    }
  },
  envelope: { rows: 'position_state', rowsOptional: false, numbers: ['count'] },
  checkRow(row) {
    if (!isPlainObject(row)) return 'is not an object'
    const bad = findInvalidRasaField(row)
    return bad === undefined ? undefined : `.${bad} has the wrong type`
  },
  // `count` was checked to be a number by the search client against `envelope.numbers`.
  result: (envelope, rows) => ({ kind: 'rasa', count: Number(envelope.count), rows }),
  totalOf: (result) => result.count,
  backfillParams: (account, since) => ({ account, timestampGte: since }),
  // The stored state of an anchored quote is under its on-chain id; a temporary id is not searchable.
  quoteParams: (account, { quoteId }) => (quoteId !== undefined && quoteId > 0 ? { account, quoteId } : { account }),
}
