import { NOT_JSON, controlFrame, exceedsBytes, isPlainObject, oversizeFrame, parseJson, sealRaw } from '../frame.js'
import type { ProtocolWire } from '../ProtocolModule.js'
import type { ServiceEnigmaNotificationsConfig } from './enigmaTypes.js'
import { findInvalidEnigmaField } from './enigmaFields.js'
import { enigmaFrame } from './enigmaFrame.js'
import { buildEnigmaSubscribeFrame } from './buildEnigmaSubscribeFrame.js'

/**
 * enigma (docs/protocols.md, "enigma"): one socket per (url, channel, account); frames arrive in an envelope whose
 * `data` may be a JSON string; the account is the envelope's `address`. Its history half is
 * `enigmaSearch`.
 */
export const enigmaProtocol: ProtocolWire<ServiceEnigmaNotificationsConfig> = {
  protocol: 'enigma',
  multiplexed: false,
  endpointKey: ({ url, channel }) => `enigma ${url} ${channel}`,
  // One account per socket: the pool never puts two on one enigma socket, nor sends for none.
  subscribeFrame: ({ channel }, accounts) => buildEnigmaSubscribeFrame({ account: accounts[0]!, channel }),
  decode(text, maxFrameBytes) {
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
    return enigmaFrame(sealRaw(data), envelope)
  },
  frameOf: enigmaFrame,
}
