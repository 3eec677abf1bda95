import { ServiceError } from '../errors/ServiceError.js'

/**
 * A SubAccount address: `0x` followed by 40 hex digits, any case.
 *
 * @example
 * const account: Address = '0x1111111111111111111111111111111111111111'
 */
export type Address = `0x${string}`

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

/**
 * Whether a value is an {@link Address} (`0x` + 40 hex digits, any case).
 *
 * @example
 * isAddress('0xabc') // false
 */
export function isAddress(value: unknown): value is Address {
  return typeof value === 'string' && ADDRESS.test(value)
}

/**
 * Checks a runtime string (a form field, a URL parameter, an API response) and returns it as an
 * {@link Address}, or throws `INVALID_PARAMETERS` saying why; no cast needed.
 *
 * @example
 * const account = toAddress(new URL(location.href).searchParams.get('account') ?? '')
 */
export function toAddress(value: string): Address {
  assertAddress(value)
  return value
}

/** Throws `INVALID_PARAMETERS` naming the parameter, so a typo fails at the call and not on the wire. */
export function assertAddress(value: unknown, name = 'account'): asserts value is Address {
  if (!isAddress(value)) {
    throw new ServiceError(
      'INVALID_PARAMETERS',
      `${name} must be a SubAccount address: "0x" followed by 40 hex digits, got ${describe(value)}.`,
    )
  }
}

/** Short, safe rendering of a bad value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}
