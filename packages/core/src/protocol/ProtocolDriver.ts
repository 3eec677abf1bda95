import type { ServiceNotificationsConfig } from '../config/types.js'
import type { Address } from '../utils/address.js'
import type { DecodedFrame, FrameOf } from './decodedFrame.js'
import type { Protocol } from './types.js'

/**
 * Everything that differs between the wire protocols, behind one interface, so the socket pool and
 * the streams have a single code path.
 */
export interface ProtocolDriver {
  readonly protocol: Protocol
  /** Pool key: sockets with equal keys are shared. */
  socketKey(notifications: ServiceNotificationsConfig, account: Address): string
  /** The frame to send on every open (and, for hubs, when the watched set changes). */
  subscribeFrame(notifications: ServiceNotificationsConfig, accounts: readonly Address[]): string
  /** Decode one inbound text frame; never throws. */
  decode(text: string, maxFrameBytes: number): DecodedFrame
  /** A stored search row (enigma document, rasa position state) as a decoded frame. */
  decodeStored(row: Record<string, unknown>): FrameOf<'frame'>
  /** The normalized `account` of a frame delivered to a subscription of `subscribed`. */
  accountOf(frame: FrameOf<'frame'>, subscribed: Address): Address
}
