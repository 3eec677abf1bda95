import { type WireFrame, decimalOrNull, numberOrNull } from '../frame.js'
import type { RawPositionNotification } from '../rawNotification.js'

/**
 * An enigma frame from its `data` and the envelope around it (a live envelope or a stored document
 * have the same top-level fields): the account is the envelope's `address`, and the envelope's
 * `primary_identifier` / `secondary_identifier` stand in for ids the data lacks.
 */
export function enigmaFrame(raw: RawPositionNotification, envelope: Readonly<Record<string, unknown>> | undefined): WireFrame {
  const address = envelope?.address
  const errorCode = numberOrNull(raw.error_code)
  return {
    kind: 'frame',
    raw,
    address: typeof address === 'string' ? address : undefined,
    quote: numberOrNull(raw.quote_id) ?? numberOrNull(envelope?.primary_identifier),
    temp: numberOrNull(raw.temp_quote_id) ?? numberOrNull(envelope?.secondary_identifier),
    fields: {
      version: numberOrNull(raw.version),
      vaAddress: stringOrNull(raw.va_address),
      failureMessage: stringOrNull(raw.failure_message),
      // Amounts are decimal strings on enigma; a number 0 or error_code 0 (a server written like rasa's) is read as rasa reads it: no value.
      filledAmountOpen: amount(raw.filled_amount_open),
      filledAmountClose: amount(raw.filled_amount_close),
      avgPriceOpen: amount(raw.avg_price_open),
      avgPriceClose: amount(raw.avg_price_close),
      errorCode: errorCode === 0 ? null : errorCode,
    },
  }
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const amount = (value: unknown): string | null => (value === 0 ? null : decimalOrNull(value))
