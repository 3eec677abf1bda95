import { findInvalidBaseField, num, str } from '../validateRawFields.js'

/** Base fields plus enigma's own (`va_address`, `failure_message`, `version`); rasa's fields are extras here. */
export function findInvalidEnigmaField(f: Record<string, unknown>): string | undefined {
  const base = findInvalidBaseField(f)
  if (base !== undefined) return base
  if (!str(f.va_address)) return 'va_address'
  if (!str(f.failure_message)) return 'failure_message'
  if (!num(f.version)) return 'version'
  return undefined
}
