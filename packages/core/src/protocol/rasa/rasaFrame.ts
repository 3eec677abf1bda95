import { type WireFrame, numberOrNull } from '../frame.js'
import type { RawPositionNotification } from '../rawNotification.js'

/**
 * A rasa frame (bare on the wire and in history): routed by `counterparty_address`; before a quote
 * is anchored on-chain rasa sends `quote_id` equal to the negative temporary id, which is read as
 * the temporary id when `temp_quote_id` is absent; the number 0 is "no value" in amounts, prices and
 * `error_code`; `order_type` is its own.
 */
export function rasaFrame(raw: RawPositionNotification): WireFrame {
  const address = raw.counterparty_address
  const quote = numberOrNull(raw.quote_id)
  return {
    kind: 'frame',
    raw,
    address: typeof address === 'string' ? address : undefined,
    quote,
    temp: numberOrNull(raw.temp_quote_id) ?? (quote !== null && quote < 0 ? quote : null),
    orderType: numberOrNull(raw.order_type),
    none: 0,
  }
}
