import { protocols } from './protocols.js'
import type { Protocol, RawPositionNotification } from './types.js'

/** The default `maxFrameBytes`: 1 MiB, far above any notification. */
export const DEFAULT_MAX_FRAME_BYTES = 1_048_576

/**
 * Parses one inbound text frame of a protocol into its raw frame (enigma: unwrapped from the envelope),
 * or `null` for control, malformed and oversize frames. Never throws; the result is frozen.
 *
 * @example
 * parseNotificationFrame('{"ack":true}', 'enigma') // null
 * parseNotificationFrame('{"quote_id":7}', 'rasa') // { quote_id: 7 }
 */
export function parseNotificationFrame(
  frame: string,
  protocol: Protocol,
  options?: { maxFrameBytes?: number },
): RawPositionNotification | null {
  const decoded = protocols[protocol].decode(frame, options?.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES)
  return decoded.kind === 'frame' ? decoded.raw : null
}
