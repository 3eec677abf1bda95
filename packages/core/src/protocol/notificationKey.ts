import type { Notification } from './types.js'

/**
 * What a transition is, whatever copy of it arrives (the live frame, the stored history row, a
 * forwarded one): its quote, time, action, status, state type and filled amounts. Two partial fills
 * of one quote in the same second differ here; a stored row and its live frame do not.
 *
 * @example
 * contentKey(n) // '1000|1763800000|FillLimitOrderOpen|success|report|1.5|null'
 */
export function contentKey(n: Notification): string {
  return `${n.quoteId}|${n.modifyTime}|${n.lastSeenAction}|${n.actionStatus}|${n.stateType}|${n.filledAmountOpen}|${n.filledAmountClose}`
}

/**
 * The one definition of "the same notification" that resume de-duplication, quote state and the
 * relay's `Nats-Msg-Id` share: the `id` when the solver gave one, else {@link contentKey}.
 *
 * @example
 * const msgId = `${accountKey}.${notificationKey(n)}`
 */
export function notificationKey(n: Notification): string {
  return n.id ?? contentKey(n)
}

/**
 * Whether two notifications are the same transition: the same `id` when both have one, else the same
 * content (a stored row without an id matches its live frame either way).
 *
 * @example
 * isSameNotification(liveFrame, historyRow) // true
 */
export function isSameNotification(a: Notification, b: Notification): boolean {
  if (a.id !== null && a.id === b.id) return true
  return contentKey(a) === contentKey(b)
}
