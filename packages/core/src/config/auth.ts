import type { Protocol } from '../protocol/protocols.js'

/**
 * What an auth callback is told: which solver, speaking which protocol, and the URL about to be used
 * (the configured socket URL for `socketUrl`, the request URL for `headers`).
 *
 * @example
 * const ctx: AuthContext = { chainId: 42161, solverId: 'beta', protocol: 'rasa', url: 'wss://beta.example/ws' }
 */
export interface AuthContext {
  chainId: number
  solverId: string
  protocol: Protocol
  url: string
}

/**
 * Credentials that change (tokens that expire): called per request attempt and per dial, sync or
 * async. A throw or rejection is an `AUTH` error, never an unhandled rejection.
 *
 * @example
 * createNotificationsClient({ config, auth: {
 *   headers: () => ({ authorization: `Bearer ${getToken()}` }),
 *   socketUrl: ({ url }) => `${url}?token=${getToken()}`,
 * } })
 */
export interface AuthOptions {
  /** headers for every history request attempt (after the solver's config `headers`, which they may override) */
  headers?(context: AuthContext): Record<string, string> | undefined | Promise<Record<string, string> | undefined>
  /** the URL to dial, before every dial (browsers cannot set socket headers, so tokens go in the URL) */
  socketUrl?(context: AuthContext): string | Promise<string>
}

/** A header name is an HTTP token; a value has no line breaks (they would split the request). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
export const HEADER_VALUE = /^[^\r\n\0]*$/
