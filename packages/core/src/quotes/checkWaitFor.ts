import { ServiceError } from '../errors/ServiceError.js'
import { assertAddress, describe } from '../utils/address.js'
import type { QuoteState, QuoteStatus, WaitForOptions, WaitForParams } from './QuoteState.js'

const STATUSES: ReadonlySet<string> = new Set<QuoteStatus>(['pending', 'open', 'closing', 'closed', 'cancelling', 'cancelled', 'failed', 'liquidated', 'unknown'])

/** What {@link checkWaitFor} makes of `waitFor`'s options. */
export interface CheckedWait {
  until: (quote: QuoteState) => boolean
  timeoutMs: number
  maxTransitions: number
}

/**
 * `waitFor`'s arguments checked at the call (the wait itself is a chunk loaded after): bad ones throw
 * `INVALID_PARAMETERS` saying what to pass, which the client turns into a rejected Promise.
 *
 * @example
 * const { until, timeoutMs } = checkWaitFor({ account, quoteId: 7 }, { until: 'closed' })
 */
export function checkWaitFor(params: WaitForParams, options: WaitForOptions): CheckedWait {
  if (options === null || typeof options !== 'object') {
    throw new ServiceError('INVALID_PARAMETERS', 'waitFor needs options with until, e.g. waitFor({ account, quoteId }, { until: "closed" })')
  }
  assertAddress(params?.account)
  const { quoteId, tempQuoteId } = params
  if ((quoteId === undefined) === (tempQuoteId === undefined)) {
    throw new ServiceError('INVALID_PARAMETERS', 'waitFor needs exactly one of quoteId (the on-chain id) or tempQuoteId (the temporary, negative id)')
  }
  if (quoteId !== undefined && !(Number.isInteger(quoteId) && quoteId > 0)) {
    throw new ServiceError('INVALID_PARAMETERS', `waitFor quoteId must be a positive integer (the on-chain id), got ${describe(quoteId)}; a negative id is a tempQuoteId`)
  }
  if (tempQuoteId !== undefined && !(Number.isInteger(tempQuoteId) && tempQuoteId < 0)) {
    throw new ServiceError('INVALID_PARAMETERS', `waitFor tempQuoteId must be a negative integer, got ${describe(tempQuoteId)}; a positive id is a quoteId`)
  }
  const until = predicateOf(options?.until)
  const timeoutMs = options.timeoutMs ?? 120_000
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    throw new ServiceError('INVALID_PARAMETERS', `waitFor timeoutMs must be a positive number of milliseconds, got ${describe(timeoutMs)}`)
  }
  const maxTransitions = options.maxTransitions ?? 50
  if (typeof maxTransitions !== 'number' || !Number.isInteger(maxTransitions) || maxTransitions <= 0) {
    throw new ServiceError('INVALID_PARAMETERS', `waitFor maxTransitions must be a positive integer, got ${describe(maxTransitions)}`)
  }
  return { until, timeoutMs, maxTransitions }
}

function predicateOf(until: WaitForOptions['until'] | undefined): (quote: QuoteState) => boolean {
  if (typeof until === 'function') return until
  const list = typeof until === 'string' ? [until] : Array.isArray(until) ? until : undefined
  if (!list || list.length === 0 || list.some((s) => typeof s !== 'string' || !STATUSES.has(s))) {
    throw new ServiceError(
      'INVALID_PARAMETERS',
      `waitFor until must be a quote status (${[...STATUSES].join(', ')}), a list of them, or a function of the quote; got ${JSON.stringify(until)}`,
    )
  }
  const wanted = new Set<string>(list)
  return (quote) => wanted.has(quote.status)
}
