/**
 * Where the client tells what it does: socket dials, opens and closes (with the code), backfills
 * starting and ending, frames dropped and why, cross-tab role changes. `console` works as is; every
 * method is optional. URLs are redacted (`***` for credentials and query values).
 *
 * @example
 * const client = createNotificationsClient({ config, logger: console })
 */
export interface Logger {
  debug?(message: string, fields: Record<string, unknown>): void
  info?(message: string, fields: Record<string, unknown>): void
  warn?(message: string, fields: Record<string, unknown>): void
  error?(message: string, fields: Record<string, unknown>): void
}

/** A logger's level of a socket state: what is routine is debug, a drop a warning. */
export const LEVEL_OF_STATUS = { idle: 'debug', connecting: 'debug', open: 'info', reconnecting: 'warn', closed: 'info' } as const
