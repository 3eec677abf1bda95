import { ServiceError } from '../../errors/ServiceError.js'
import { joinUrl } from '../../utils/joinUrl.js'
import { type DecodedFrame, NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson, sealRaw } from '../frame.js'
import type { ProtocolModule } from '../ProtocolModule.js'
import type { RasaSearchResult } from './rasaTypes.js'
import type { PositionStateResponseSchema } from '../types.js'
import { findInvalidBaseField, num } from '../validateRawFields.js'

/** Base fields plus rasa's own `order_type`; enigma's fields are extras here. */
function findInvalidRasaField(f: Record<string, unknown>): string | undefined {
  const base = findInvalidBaseField(f)
  if (base !== undefined) return base
  return num(f.order_type) ? undefined : 'order_type'
}

/** The `/position-state/{start}/{size}` endpoint answers at most this many rows. */
const RASA_MAX_SIZE = 100

/**
 * rasa (docs/protocols.md, "rasa"): one hub socket per url carries every account; bare frames are routed by
 * `counterparty_address` and the account is stamped from the subscription. History keeps the
 * latest state per quote, newest `modify_time` first.
 */
export const rasaProtocol: ProtocolModule = {
  protocol: 'rasa',
  multiplexed: true,
  endpointKey(notifications) {
    return `rasa ${notifications.url}`
  },
  subscribeFrame(_notifications, accounts) {
    // The pool keeps accounts distinct case-insensitively in first-seen order, as buildRasaSubscribeFrame would.
    return JSON.stringify({ address: accounts })
  },
  decode(text, maxFrameBytes): DecodedFrame {
    if (exceedsBytes(text, maxFrameBytes)) return oversizeFrame()
    const frame = parseJson(text)
    if (frame === NOT_JSON) return { kind: 'malformed', reason: 'not JSON' }
    if (!isPlainObject(frame) || (frame.quote_id == null && frame.temp_quote_id == null)) return controlFrame()
    const invalid = findInvalidRasaField(frame)
    if (invalid !== undefined) return { kind: 'malformed', reason: `field \`${invalid}\` has the wrong type` }
    const address = frame.counterparty_address
    return { kind: 'frame', raw: sealRaw(frame), address: typeof address === 'string' ? address : undefined }
  },
  accountOf(_frame, subscribed) {
    return subscribed
  },
  decodeStored(state) {
    const address = state.counterparty_address
    return { kind: 'frame', raw: state, address: typeof address === 'string' ? address : undefined }
  },
  search: {
    defaultSize: RASA_MAX_SIZE,
    pageSize: RASA_MAX_SIZE,
    maxSize: RASA_MAX_SIZE,
    newestFirst: true,
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
    result: (envelope, rows): RasaSearchResult => ({ kind: 'rasa', count: envelope.count as number, rows: rows as PositionStateResponseSchema[] }),
    totalOf: (result) => result.count,
    backfillParams: (account, since) => ({ account, timestampGte: since }),
    // The stored state of an anchored quote is under its on-chain id; a temporary id is not searchable.
    quoteParams: (account, { quoteId }) => (quoteId !== undefined && quoteId > 0 ? { account, quoteId } : { account }),
  },
}
