import { buildRasaSubscribeFrame } from './buildRasaSubscribeFrame.js'
import { type DecodedFrame, NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson } from './decodedFrame.js'
import type { ProtocolDriver } from './ProtocolDriver.js'
import { findInvalidField } from './validateRawFields.js'

/**
 * rasa: one hub socket per url for every account; bare frames routed by `counterparty_address`;
 * the account is stamped from the subscription.
 */
export const rasaDriver: ProtocolDriver = {
  protocol: 'rasa',
  socketKey(notifications) {
    return `rasa ${notifications.url}`
  },
  subscribeFrame(_notifications, accounts) {
    return buildRasaSubscribeFrame(accounts)
  },
  decode(text, maxFrameBytes): DecodedFrame {
    if (exceedsBytes(text, maxFrameBytes)) return oversizeFrame()
    const frame = parseJson(text)
    if (frame === NOT_JSON) return { kind: 'malformed', reason: 'not JSON' }
    if (!isPlainObject(frame) || (frame.quote_id == null && frame.temp_quote_id == null)) return controlFrame()
    const invalid = findInvalidField(frame)
    if (invalid !== undefined) return { kind: 'malformed', reason: `field \`${invalid}\` has the wrong type` }
    const address = frame.counterparty_address
    return { kind: 'frame', raw: frame, address: typeof address === 'string' ? address : undefined }
  },
  decodeStored(state) {
    const address = state.counterparty_address
    return { kind: 'frame', raw: state, address: typeof address === 'string' ? address : undefined }
  },
  accountOf(_frame, subscribed) {
    return subscribed
  },
}
