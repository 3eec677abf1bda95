import { type DecodedFrame, NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson, sealRaw } from '../frame.js'
import type { ProtocolWire } from '../ProtocolModule.js'
import { findInvalidRasaField } from './rasaFields.js'

/**
 * rasa (docs/protocols.md, "rasa"): one hub socket per url carries every account; bare frames are routed by
 * `counterparty_address` and the account is stamped from the subscription. Its history half is
 * `rasaSearch`.
 */
export const rasaProtocol: ProtocolWire = {
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
}
