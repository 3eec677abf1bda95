import type { ServiceEnigmaNotificationsConfig } from '../config/types.js'
import type { Address } from '../utils/address.js'
import { buildEnigmaSubscribeFrame } from './buildEnigmaSubscribeFrame.js'
import { type DecodedFrame, NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson } from './decodedFrame.js'
import type { ProtocolDriver } from './ProtocolDriver.js'
import { findInvalidField } from './validateRawFields.js'

/**
 * enigma: one socket per (url, channel, account); frames arrive in an envelope whose `data` may be a
 * JSON string; the account is the envelope's `address`.
 */
export const enigmaDriver: ProtocolDriver = {
  protocol: 'enigma',
  socketKey(notifications, account) {
    const { url, channel } = notifications as ServiceEnigmaNotificationsConfig
    return `enigma ${url} ${channel} ${account.toLowerCase()}`
  },
  subscribeFrame(notifications, accounts) {
    // One account per enigma socket by construction of socketKey.
    return buildEnigmaSubscribeFrame({
      account: accounts[0] ?? '',
      channel: (notifications as ServiceEnigmaNotificationsConfig).channel,
    })
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
    const invalid = findInvalidField(data)
    if (invalid !== undefined) return { kind: 'malformed', reason: `field \`${invalid}\` has the wrong type` }
    const address = envelope.address
    const primary = envelope.primary_identifier
    const secondary = envelope.secondary_identifier
    return {
      kind: 'frame',
      raw: data,
      address: typeof address === 'string' ? address : undefined,
      primaryIdentifier: typeof primary === 'number' ? primary : null,
      secondaryIdentifier: typeof secondary === 'number' ? secondary : null,
    }
  },
  decodeStored(doc) {
    let data = doc.data
    if (typeof data === 'string') {
      data = parseJson(data)
    }
    return {
      kind: 'frame',
      raw: isPlainObject(data) ? data : {},
      address: typeof doc.address === 'string' ? doc.address : undefined,
      primaryIdentifier: typeof doc.primary_identifier === 'number' ? doc.primary_identifier : null,
      secondaryIdentifier: typeof doc.secondary_identifier === 'number' ? doc.secondary_identifier : null,
    }
  },
  accountOf(frame, subscribed) {
    return (frame.address as Address | undefined) ?? subscribed
  },
}
