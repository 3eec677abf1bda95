import type { Address } from '../utils/address.js'
import { searchProtocols } from './searchProtocols.js'
import { normalizeFrame } from './normalizeNotification.js'
import type { Notification, NotificationDocument, PositionStateResponseSchema, Protocol } from './types.js'

/**
 * Normalizes one stored search row (an enigma {@link NotificationDocument} or a rasa position state)
 * into a {@link Notification} with `source: 'backfill'` unless told otherwise.
 *
 * @example
 * const n = toNotification(result.rows[0], { protocol: result.kind, chainId: 42161, solverId: 'alpha' })
 */
export function toNotification(
  row: NotificationDocument | PositionStateResponseSchema,
  context: { protocol: Protocol; chainId: number; solverId: string; account?: Address; source?: 'live' | 'backfill' },
): Notification {
  const decoded = searchProtocols[context.protocol].decodeStored(row)
  const subscribed = (context.account ?? decoded.address ?? '0x') as Address
  return normalizeFrame(decoded, context.protocol, context.chainId, context.solverId, subscribed, context.source ?? 'backfill')
}
