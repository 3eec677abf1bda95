import { ServiceError } from '../errors/ServiceError.js'
import type { Address } from '../utils/address.js'
import { classifyNotification } from './classifyNotification.js'
import { phaseOf } from './classifyPhase.js'
import type { WireFrame } from './frame.js'
import { protocolOf, protocols } from './protocols.js'
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
  /**
   * The fields the wire sent around `raw`, when the protocol puts some there: enigma's envelope (or
   * stored document), whose `primary_identifier` / `secondary_identifier` stand in for ids `raw` lacks.
   */
  envelope?: Readonly<Record<string, unknown>> | undefined
}

const num = (value: unknown): number | null => (typeof value === 'number' ? value : null)
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null)
/** Decimal strings stay exact, other numbers become strings; the protocol's "no value" (`none`) is null. */
const decimal = (value: unknown, none: unknown): string | null =>
  value === none ? null : typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null

/**
 * Turns a raw snake_case frame into the immutable {@link Notification} shape shared by both protocols.
 * Only known fields are copied, so hostile keys (`__proto__`, `constructor`) never reach the result.
 *
 * @example
 * const n = normalizeNotification({ quote_id: 7, action_status: 'success' }, { protocol: 'rasa', chainId: 1, solverId: 'beta', account })
 */
export function normalizeNotification(raw: RawPositionNotification, context: NormalizeContext): Notification {
  const module = protocolOf(context.protocol)
  if (module === undefined) {
    throw new ServiceError('INVALID_PARAMETERS', `context.protocol must be a registered protocol (${Object.keys(protocols).join(', ')}), got ${JSON.stringify(String(context.protocol))}.`)
  }
  // A caller's own object is kept as given (n.raw === raw) and never frozen or copied: apps that
  // normalize their own rows compare and reuse them. Frames the library parses itself are sealed
  // where they are decoded, and only known fields are read here, so hostile keys reach nothing.
  const frame = module.frameOf(raw, context.envelope)
  // The caller says whose notification it is: `context.account`, even where the envelope names one.
  return normalizeFrame(frame.account === undefined ? frame : { ...frame, account: undefined }, context.protocol, context.chainId, context.solverId, context.account, context.source ?? 'live')
}

/**
 * {@link normalizeNotification} of a frame its protocol's codec read, with positional arguments for
 * the per-frame path (no context object). The codec has read its own wire (ids, envelope); this
 * reads only the fields every protocol shares.
 */
export function normalizeFrame(
  frame: WireFrame,
  protocol: Protocol,
  chainId: number,
  solverId: string,
  /** the account of the subscription (or search) the frame reached: the notification's unless the frame names its own */
  subscribed: Address,
  source: 'live' | 'backfill',
): Notification {
  // What depends on the protocol (its own fields, its "no value" sentinel) its codec read already.
  const { raw, quote, temp, none } = frame
  const quoteId = quote !== null && quote > 0 ? quote : temp !== null && temp < 0 ? temp : 0
  const lastSeenAction = str(raw.last_seen_action)
  const actionStatus = str(raw.action_status)
  const stateType = str(raw.state_type)
  const filledAmountOpen = decimal(raw.filled_amount_open, none)
  const errorCode = num(raw.error_code)
  return Object.freeze({
    type: classifyNotification(actionStatus),
    phase: phaseOf(lastSeenAction, stateType, filledAmountOpen),
    quoteId,
    tempQuoteId: temp,
    onChain: quoteId > 0,
    lastSeenAction,
    actionStatus,
    account: frame.account ?? subscribed,
    counterpartyAddress: str(raw.counterparty_address),
    stateType,
    failureType: str(raw.failure_type),
    failureMessage: frame.failureMessage ?? null,
    errorCode: errorCode === none ? null : errorCode,
    filledAmountOpen,
    filledAmountClose: decimal(raw.filled_amount_close, none),
    avgPriceOpen: decimal(raw.avg_price_open, none),
    avgPriceClose: decimal(raw.avg_price_close, none),
    orderType: frame.orderType ?? null,
    version: frame.version ?? null,
    vaAddress: frame.vaAddress ?? null,
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
