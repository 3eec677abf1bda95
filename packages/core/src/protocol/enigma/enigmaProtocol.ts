import type { Address } from '../../utils/address.js'
import { type DecodedFrame, NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson, sealRaw } from '../frame.js'
import type { ProtocolWire } from '../ProtocolModule.js'
import type { ServiceEnigmaNotificationsConfig } from './enigmaTypes.js'
import { findInvalidEnigmaField, identifier } from './enigmaFields.js'
import { buildEnigmaSubscribeFrame } from './buildEnigmaSubscribeFrame.js'

/**
 * enigma (docs/protocols.md, "enigma"): one socket per (url, channel, account); frames arrive in an envelope whose
 * `data` may be a JSON string; the account is the envelope's `address`. Its history half is
 * `enigmaSearch`.
 */
export const enigmaProtocol: ProtocolWire = {
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
}
