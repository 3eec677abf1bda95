import type { Address } from '../utils/address.js'
import { classifyNotification } from './classifyNotification.js'
import { phaseOf } from './classifyPhase.js'
import type { Notification, Protocol, RawPositionNotification } from './types.js'

/**
 * Where a raw frame came from: what normalization cannot read off the frame itself.
 *
 * @example
 * const context: NormalizeContext = { protocol: 'rasa', chainId: 42161, solverId: 'beta', account: '0x…' }
 */
export interface NormalizeContext {
  protocol: Protocol
  chainId: number
  solverId: string
  account: Address
  source?: 'live' | 'backfill'
  /** enigma envelope identifiers, used when the frame itself has no `quote_id` / `temp_quote_id` */
  primaryIdentifier?: number | null | undefined
  secondaryIdentifier?: number | null | undefined
}

const num = (value: unknown): number | null => (typeof value === 'number' ? value : null)
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null)
/** Decimal strings stay exact; rasa's numeric `0` means "no value"; other numbers become strings. */
const decimal = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' && value !== 0 ? String(value) : null

/**
 * Turns a raw snake_case frame into the immutable {@link Notification} shape shared by both protocols.
 * Only known fields are copied, so hostile keys (`__proto__`, `constructor`) never reach the result.
 *
 * @example
 * const n = normalizeNotification({ quote_id: 7, action_status: 'success' }, { protocol: 'rasa', chainId: 1, solverId: 'beta', account })
 */
export function normalizeNotification(raw: RawPositionNotification, context: NormalizeContext): Notification {
  return normalizeFrame(
    // A caller's own object is kept as given (n.raw === raw) and never frozen or copied: apps that
    // normalize their own rows compare and reuse them. Frames the library parses itself are sealed
    // where they are decoded, and only known fields are read here, so hostile keys reach nothing.
    raw,
    context.protocol,
    context.chainId,
    context.solverId,
    context.account,
    context.primaryIdentifier,
    context.secondaryIdentifier,
    context.source ?? 'live',
  )
}

/**
 * {@link normalizeNotification} with positional arguments, for the per-frame path: no context object,
 * and `raw` must already be sealed (protocol modules seal what they decode).
 */
export function normalizeFrame(
  raw: RawPositionNotification,
  protocol: Protocol,
  chainId: number,
  solverId: string,
  account: Address,
  primaryIdentifier: number | null | undefined,
  secondaryIdentifier: number | null | undefined,
  source: 'live' | 'backfill',
): Notification {
  const quote = num(raw.quote_id) ?? num(primaryIdentifier)
  const temp = num(raw.temp_quote_id) ?? num(secondaryIdentifier)
  // rasa reports a pre-chain quote with quote_id equal to the negative temporary id.
  const tempQuoteId = temp ?? (quote !== null && quote < 0 ? quote : null)
  const quoteId = quote !== null && quote > 0 ? quote : tempQuoteId !== null && tempQuoteId < 0 ? tempQuoteId : 0
  const lastSeenAction = str(raw.last_seen_action)
  const actionStatus = str(raw.action_status)
  const stateType = str(raw.state_type)
  const filledAmountOpen = decimal(raw.filled_amount_open)
  const errorCode = num(raw.error_code)
  return Object.freeze({
    type: classifyNotification(actionStatus),
    phase: phaseOf(lastSeenAction, stateType, filledAmountOpen),
    quoteId,
    tempQuoteId,
    onChain: quoteId > 0,
    lastSeenAction,
    actionStatus,
    account,
    counterpartyAddress: str(raw.counterparty_address),
    stateType,
    failureType: str(raw.failure_type),
    failureMessage: str(raw.failure_message),
    errorCode: errorCode === 0 ? null : errorCode,
    filledAmountOpen,
    filledAmountClose: decimal(raw.filled_amount_close),
    avgPriceOpen: decimal(raw.avg_price_open),
    avgPriceClose: decimal(raw.avg_price_close),
    orderType: num(raw.order_type),
    version: num(raw.version),
    vaAddress: str(raw.va_address),
    createTime: num(raw.create_time),
    modifyTime: num(raw.modify_time),
    id: str(raw.id),
    protocol,
    chainId,
    solverId,
    source,
    raw,
  })
}
