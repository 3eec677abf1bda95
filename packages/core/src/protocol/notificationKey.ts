import type { Notification } from './types.js'

const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/

/** A plain decimal string in one spelling ("1.50", "01.5" → "1.5"; "-0.0" → "0"); anything else as it is. */
function decimal(value: string | null): string | null {
  if (value === null) return null
  const m = PLAIN_DECIMAL.exec(value)
  if (!m) return value
  const whole = m[2]!.replace(/^0+(?=\d)/, '')
  const fraction = (m[3] ?? '').replace(/0+$/, '')
  const digits = fraction ? `${whole}.${fraction}` : whole
  return m[1] && digits !== '0' ? `-${digits}` : digits
}

/**
 * What a transition is, whatever copy of it arrives (the live frame, the stored history row, a
 * forwarded one): its quote, time, action, status, state type and filled amounts (compared as
 * decimals: "1.50" and "1.5" are one amount). Two partial fills of one quote in the same second
 * differ here; a stored row and its live frame do not. The `id` is not part of it: a solver that
 * reuses an id for another transition still has two transitions.
 *
 * @example
 * contentKey(n) // '1000|1763800000|FillLimitOrderOpen|success|report|1.5|null'
 */
export function contentKey(n: Notification): string {
  return `${n.quoteId}|${n.modifyTime}|${n.lastSeenAction}|${n.actionStatus}|${n.stateType}|${decimal(n.filledAmountOpen)}|${decimal(n.filledAmountClose)}`
}

/**
 * The one key of "the same notification" that resume de-duplication, quote state and the relay's
 * `Nats-Msg-Id` share: its content ({@link contentKey}). An id repeated with other content is a new
 * transition, so it gets a new key and JetStream never drops it.
 *
 * @example
 * const msgId = `${accountKey}.${notificationKey(n)}`
 */
export function notificationKey(n: Notification): string {
  return contentKey(n)
}

/**
 * Whether two notifications are the same transition: the same content (a stored row matches its live
 * frame with or without an id; the same id with other content is another transition).
 *
 * @example
 * isSameNotification(liveFrame, historyRow) // true
 */
export function isSameNotification(a: Notification, b: Notification): boolean {
  return contentKey(a) === contentKey(b)
}
