import { ServiceError } from '../../errors/ServiceError.js'
import { describe } from '../../utils/address.js'

/** History requests of resume streams in flight at once per solver endpoint, by default (a browser's connections per host). */
export const DEFAULT_HISTORY_CONCURRENCY = 6

/**
 * Checks `search.concurrency` (a positive integer), at client creation.
 *
 * @example
 * resolveHistoryConcurrency(undefined) // 6
 */
export function resolveHistoryConcurrency(value: unknown): number {
  if (value === undefined) return DEFAULT_HISTORY_CONCURRENCY
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ServiceError('INVALID_PARAMETERS', `search.concurrency must be a positive integer, got ${describe(value)}`)
  }
  return value
}
