import type { Address } from '../utils/address.js'
import { isPlainObject } from './decodedFrame.js'
import { normalizeNotification } from './normalizeNotification.js'
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
  const source = context.source ?? 'backfill'
  if (context.protocol === 'enigma') {
    const doc = row as NotificationDocument
    let data: unknown = doc.data
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data)
      } catch {
        data = {}
      }
    }
    return normalizeNotification(isPlainObject(data) ? data : {}, {
      ...context,
      source,
      account: (typeof doc.address === 'string' ? doc.address : context.account ?? '0x') as Address,
      primaryIdentifier: doc.primary_identifier,
      secondaryIdentifier: doc.secondary_identifier,
    })
  }
  const state = row as PositionStateResponseSchema
  const account = context.account ?? (state.counterparty_address as Address | undefined) ?? '0x'
  return normalizeNotification(state, { ...context, source, account })
}
