import type { NotificationPhase } from './types.js'

/**
 * The phase table (docs/protocols.md, "Classification"), written once. Both spellings of the instant-close fill are in the wild.
 */
const PHASE_BY_ACTION: Readonly<Record<string, Exclude<NotificationPhase, 'fill' | 'other'>>> = {
  SendQuote: 'open',
  SendQuoteTransaction: 'open',
  FillLimitOrderOpen: 'open',
  InstantRFQ: 'open',
  RequestToClosePosition: 'close',
  InstantRequestToClosePosition: 'close',
  FillLimitOrderClose: 'close',
  FillOrderInstantClose: 'close',
  FillMarketOrderInstantClose: 'close',
  RequestToCancelQuote: 'cancel',
  RequestToCancelCloseRequest: 'cancel',
  UnlockQuote: 'cancel',
  LiquidatePosition: 'liquidation',
}

/**
 * Maps `last_seen_action` to a {@link NotificationPhase}; an open-phase `report` with a filled amount is `fill`.
 *
 * @example
 * classifyPhase('InstantRFQ') // 'open'
 * classifyPhase('InstantRFQ', { stateType: 'report', filledAmountOpen: '10' }) // 'fill'
 */
export function classifyPhase(
  lastSeenAction: string | null | undefined,
  detail?: { stateType?: string | null; filledAmountOpen?: string | null },
): NotificationPhase {
  return phaseOf(lastSeenAction, detail?.stateType, detail?.filledAmountOpen)
}

/** {@link classifyPhase} with positional arguments, for the per-frame path. */
export function phaseOf(
  lastSeenAction: string | null | undefined,
  stateType: string | null | undefined,
  filledAmountOpen: string | null | undefined,
): NotificationPhase {
  const phase = lastSeenAction != null && Object.hasOwn(PHASE_BY_ACTION, lastSeenAction) ? PHASE_BY_ACTION[lastSeenAction] : undefined
  if (phase === undefined) return 'other'
  if (phase === 'open' && stateType === 'report' && filledAmountOpen != null) return 'fill'
  return phase
}
