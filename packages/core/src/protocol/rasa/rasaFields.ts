import { findInvalidBaseField, num } from '../validateRawFields.js'

/** Base fields plus rasa's own `order_type`; enigma's fields are extras here. */
export function findInvalidRasaField(f: Record<string, unknown>): string | undefined {
  const base = findInvalidBaseField(f)
  if (base !== undefined) return base
  return num(f.order_type) ? undefined : 'order_type'
}
