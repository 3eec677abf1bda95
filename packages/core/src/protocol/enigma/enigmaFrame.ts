import type { Address } from '../../utils/address.js'
import { type WireFrame, numberOrNull, stringOrNull } from '../frame.js'
import type { RawPositionNotification } from '../rawNotification.js'

/**
 * An enigma frame from its `data` and the envelope around it (a live envelope or a stored document
 * have the same top-level fields): the account is the envelope's `address` (routing and the
 * notification's `account`), and the envelope's
 * `primary_identifier` / `secondary_identifier` stand in for ids the data lacks; `version`,
 * `va_address` and `failure_message` are its own.
 */
export function enigmaFrame(raw: RawPositionNotification, envelope: Readonly<Record<string, unknown>> | undefined): WireFrame {
  const address = typeof envelope?.address === 'string' ? envelope.address : undefined
  return {
    kind: 'frame',
    raw,
    address,
    // The wire string is kept as sent; only the `0X` prefix some servers write is normalized.
    account: address === undefined ? undefined : address.startsWith('0X') ? `0x${address.slice(2)}` : (address as Address),
    quote: numberOrNull(raw.quote_id) ?? numberOrNull(envelope?.primary_identifier),
    temp: numberOrNull(raw.temp_quote_id) ?? numberOrNull(envelope?.secondary_identifier),
    version: numberOrNull(raw.version),
    vaAddress: stringOrNull(raw.va_address),
    failureMessage: stringOrNull(raw.failure_message),
    // Decimal strings on the wire; a server written like rasa's that sends the number 0 means no value too.
    none: 0,
  }
}
