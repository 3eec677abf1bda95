import { NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson, sealRaw } from '../frame.js'
import type { ProtocolWire } from '../ProtocolModule.js'
import { findInvalidRasaField } from './rasaFields.js'
import { rasaFrame } from './rasaFrame.js'
import type { ServiceRasaNotificationsConfig } from './rasaTypes.js'

/**
 * rasa (docs/protocols.md, "rasa"): one hub socket per url carries every account; bare frames are routed by
 * `counterparty_address` and the account is stamped from the subscription. Its history half is
 * `rasaSearch`.
 */
export const rasaProtocol: ProtocolWire<ServiceRasaNotificationsConfig> = {
  protocol: 'rasa',
  multiplexed: true,
  endpointKey: ({ url }) => `rasa ${url}`,
  // The pool keeps accounts distinct case-insensitively in first-seen order, as buildRasaSubscribeFrame would.
  subscribeFrame: (_notifications, accounts) => JSON.stringify({ address: accounts }),
  decode(text, maxFrameBytes) {
    if (exceedsBytes(text, maxFrameBytes)) return oversizeFrame()
    const frame = parseJson(text)
    if (frame === NOT_JSON) return { kind: 'malformed', reason: 'not JSON' }
    if (!isPlainObject(frame) || (frame.quote_id == null && frame.temp_quote_id == null)) return controlFrame()
    const invalid = findInvalidRasaField(frame)
    if (invalid !== undefined) return { kind: 'malformed', reason: `field \`${invalid}\` has the wrong type` }
    return rasaFrame(sealRaw(frame))
  },
  frameOf: rasaFrame,
}
