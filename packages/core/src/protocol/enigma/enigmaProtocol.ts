import { ServiceError } from '../../errors/ServiceError.js'
import type { Address } from '../../utils/address.js'
import { joinUrl } from '../../utils/joinUrl.js'
import { type DecodedFrame, NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson, sealRaw } from '../frame.js'
import type { ProtocolModule } from '../ProtocolModule.js'
import type { EnigmaSearchResult, ServiceEnigmaNotificationsConfig } from './enigmaTypes.js'
import type { NotificationDocument } from '../types.js'
import { findInvalidBaseField, num, str } from '../validateRawFields.js'
import { buildEnigmaSubscribeFrame } from './buildEnigmaSubscribeFrame.js'

/** Base fields plus enigma's own (`va_address`, `failure_message`, `version`); rasa's fields are extras here. */
function findInvalidEnigmaField(f: Record<string, unknown>): string | undefined {
  const base = findInvalidBaseField(f)
  if (base !== undefined) return base
  if (!str(f.va_address)) return 'va_address'
  if (!str(f.failure_message)) return 'failure_message'
  if (!num(f.version)) return 'version'
  return undefined
}

const identifier = (value: unknown) => (typeof value === 'number' ? value : null)

/**
 * enigma (docs/protocols.md, "enigma"): one socket per (url, channel, account); frames arrive in an envelope whose
 * `data` may be a JSON string; the account is the envelope's `address`. History is a document store
 * searched by equality filters, in no promised order.
 */
export const enigmaProtocol: ProtocolModule = {
  protocol: 'enigma',
  multiplexed: false,
  endpointKey(notifications) {
    const { url, channel } = notifications as ServiceEnigmaNotificationsConfig
    return `enigma ${url} ${channel}`
  },
  subscribeFrame(notifications, accounts) {
    // One account per socket: the pool never puts two on one enigma socket, nor sends for none.
    return buildEnigmaSubscribeFrame({ account: accounts[0]!, channel: (notifications as ServiceEnigmaNotificationsConfig).channel })
  },
  decode(text, maxFrameBytes): DecodedFrame {
    if (exceedsBytes(text, maxFrameBytes)) return oversizeFrame()
    const envelope = parseJson(text)
    if (envelope === NOT_JSON) return { kind: 'malformed', reason: 'not JSON' }
    if (!isPlainObject(envelope)) return controlFrame()
    let data = envelope.data
    if (typeof data === 'string') {
      data = parseJson(data)
      if (data === NOT_JSON) return { kind: 'malformed', reason: '`data` is a string that is not JSON' }
    }
    if (!isPlainObject(data)) return controlFrame()
    const invalid = findInvalidEnigmaField(data)
    if (invalid !== undefined) return { kind: 'malformed', reason: `field \`${invalid}\` has the wrong type` }
    const address = envelope.address
    return {
      kind: 'frame',
      raw: sealRaw(data),
      address: typeof address === 'string' ? address : undefined,
      primaryIdentifier: identifier(envelope.primary_identifier),
      secondaryIdentifier: identifier(envelope.secondary_identifier),
    }
  },
  accountOf(frame, subscribed) {
    const address = frame.address
    if (address === undefined) return subscribed
    // The wire string is hoisted as sent; only the `0X` prefix some servers write is normalized.
    return (address.startsWith('0X') ? `0x${address.slice(2)}` : address) as Address
  },
  decodeStored(doc) {
    let data = doc.data
    if (typeof data === 'string') data = parseJson(data)
    return {
      kind: 'frame',
      raw: isPlainObject(data) ? data : {},
      address: typeof doc.address === 'string' ? doc.address : undefined,
      primaryIdentifier: identifier(doc.primary_identifier),
      secondaryIdentifier: identifier(doc.secondary_identifier),
    }
  },
  search: {
    defaultSize: undefined,
    pageSize: 100,
    maxSize: undefined,
    newestFirst: false,
    request(solver, params) {
      const base = params.baseUrl ?? (solver.notifications as ServiceEnigmaNotificationsConfig).searchUrl
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
    result: (envelope, rows): EnigmaSearchResult => ({
      kind: 'enigma',
      total: envelope.total as number,
      count: envelope.count as number,
      rows: rows as NotificationDocument[],
    }),
    totalOf: (result) => (result as EnigmaSearchResult).total,
    // Equality filters only and no promised order: read the account's documents and filter by time here.
    backfillParams: (account) => ({ account }),
    // Frames before anchoring carry quote_id 0: a quote known by its temporary id is found by that.
    quoteParams: (account, { quoteId, tempQuoteId }) => (tempQuoteId !== undefined ? { account, tempQuoteId } : { account, quoteId }),
  },
}
