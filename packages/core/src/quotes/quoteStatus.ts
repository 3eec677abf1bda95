import type { Notification } from '../protocol/types.js'
import type { QuoteStatus } from './QuoteState.js'

/**
 * The quote status table, written once. Checked against the reference SDK's lifecycle facts (its
 * `LastSeenAction`, `ActionStatus` and `StateType` values); applied to transitions in `modify_time` order.
 *
 * | action                                                       | seen        | success                                        | failed          |
 * |--------------------------------------------------------------|-------------|------------------------------------------------|-----------------|
 * | SendQuote, SendQuoteTransaction                              | pending     | pending, or open if a fill is known            | failed          |
 * | InstantRFQ, FillLimitOrderOpen                               | pending     | open                                           | failed          |
 * | RequestToClosePosition, InstantRequestToClosePosition        | closing     | closing                                        | open            |
 * | FillLimitOrderClose, FillOrderInstantClose, FillMarketOrderInstantClose | —  | closed when filled close ≥ largest filled open, else open | —      |
 * | RequestToCancelQuote                                         | cancelling  | cancelling                                     | status before   |
 * | RequestToCancelCloseRequest                                  | —           | open                                           | —               |
 * | LiquidatePosition                                            | —           | liquidated                                     | —               |
 * | any action with `action_status` `cancelled` / `canceled`     | cancelled   | cancelled                                      | cancelled       |
 *
 * "—" and every other action (`UnlockQuote`, `FailedToPutOnBinance`, unknown ones) keep the status.
 * A `seen` never moves a quote backwards (see `RANK`). Settled statuses are final: a solver reports
 * nothing after them that could reopen a quote. Solvers do not announce an accepted cancel, so
 * `cancelled` comes only from a frame or history row that says so.
 */
const RANK: Readonly<Record<QuoteStatus, number>> = {
  unknown: 0,
  pending: 1,
  open: 2,
  cancelling: 3,
  closing: 3,
  closed: 4,
  cancelled: 4,
  failed: 4,
  liquidated: 4,
}

/**
 * Whether a status is final: `closed`, `cancelled`, `failed` or `liquidated`.
 *
 * @example
 * isSettled('closed') // true
 */
export function isSettled(status: QuoteStatus): boolean {
  return RANK[status] === 4
}

/** What the fold carries from one transition to the next. */
export interface StatusFold {
  status: QuoteStatus
  /** where a failed cancel request returns to */
  beforeCancel: QuoteStatus
  /** the largest `filled_amount_open` seen */
  maxFilledOpen: string | null
}

export const START: StatusFold = Object.freeze({ status: 'unknown', beforeCancel: 'unknown', maxFilledOpen: null })

const OPEN_REQUEST = new Set(['SendQuote', 'SendQuoteTransaction'])
const OPEN_FILL = new Set(['InstantRFQ', 'FillLimitOrderOpen'])
const CLOSE_REQUEST = new Set(['RequestToClosePosition', 'InstantRequestToClosePosition'])
const CLOSE_FILL = new Set(['FillLimitOrderClose', 'FillOrderInstantClose', 'FillMarketOrderInstantClose'])

/** The fold after one more transition (newer than every one before it). */
export function nextStatus(fold: StatusFold, n: Notification): StatusFold {
  const filledOpen = n.filledAmountOpen
  // Only plain decimals enter the largest fill: anything else can never settle the quote.
  const maxFilledOpen =
    filledOpen !== null && isPlainDecimal(filledOpen) && (fold.maxFilledOpen === null || (compareDecimal(filledOpen, fold.maxFilledOpen) ?? 0) > 0) ? filledOpen : fold.maxFilledOpen
  const prev = fold.status
  if (isSettled(prev)) return maxFilledOpen === fold.maxFilledOpen ? fold : { ...fold, maxFilledOpen }
  const next = transition(prev, fold.beforeCancel, n, maxFilledOpen)
  // A `seen` is a solver noticing a request; it never undoes progress the quote already made.
  const status = n.type === 'seen' && RANK[next] < RANK[prev] ? prev : next
  const beforeCancel = status === 'cancelling' && prev !== 'cancelling' ? prev : fold.beforeCancel
  if (status === prev && beforeCancel === fold.beforeCancel && maxFilledOpen === fold.maxFilledOpen) return fold
  return { status, beforeCancel, maxFilledOpen }
}

function transition(prev: QuoteStatus, beforeCancel: QuoteStatus, n: Notification, maxFilledOpen: string | null): QuoteStatus {
  const actionStatus = n.actionStatus?.toLowerCase()
  if (actionStatus === 'cancelled' || actionStatus === 'canceled') return 'cancelled'
  const action = n.lastSeenAction ?? ''
  const { type } = n
  if (OPEN_REQUEST.has(action) || OPEN_FILL.has(action)) {
    if (type === 'seen') return 'pending'
    if (type === 'failed') return 'failed'
    if (type !== 'success') return prev
    if (OPEN_FILL.has(action)) return 'open'
    return maxFilledOpen !== null && isPositive(maxFilledOpen) ? 'open' : 'pending'
  }
  if (CLOSE_REQUEST.has(action)) return type === 'seen' || type === 'success' ? 'closing' : type === 'failed' ? 'open' : prev
  if (CLOSE_FILL.has(action)) {
    if (type !== 'success') return prev
    const closed = n.filledAmountClose
    const covered = closed !== null && maxFilledOpen !== null ? compareDecimal(closed, maxFilledOpen) : undefined
    return closed !== null && isPositive(closed) && covered !== undefined && covered >= 0 ? 'closed' : 'open'
  }
  if (action === 'RequestToCancelQuote') {
    if (type === 'seen' || type === 'success') return 'cancelling'
    if (type === 'failed') return prev === 'cancelling' ? (beforeCancel === 'unknown' ? 'pending' : beforeCancel) : prev
    return prev
  }
  if (action === 'RequestToCancelCloseRequest') return type === 'success' ? 'open' : prev
  if (action === 'LiquidatePosition') return type === 'success' ? 'liquidated' : prev
  return prev
}

/** A plain non-negative decimal string: digits, optionally a point and more digits. Nothing else is compared. */
const DECIMAL = /^(?=\.?\d)(\d*)(?:\.(\d+))?$/

/**
 * Whether an amount is a plain decimal string (`"12.5"`), the only kind the status table compares:
 * `"NaN"`, `"1e400"`, `"1e1"` or `""` could make a quote look closed by accident.
 *
 * @example
 * isPlainDecimal('0.25') // true
 * isPlainDecimal('1e1')  // false
 */
export function isPlainDecimal(amount: string): boolean {
  return DECIMAL.test(amount)
}

/**
 * Compares two plain decimal strings exactly (amounts carry up to 18 decimals); `undefined` when
 * either is not a plain decimal, so no status decision is ever made on a guess.
 */
export function compareDecimal(a: string, b: string): number | undefined {
  const x = DECIMAL.exec(a)
  const y = DECIMAL.exec(b)
  if (!x || !y) return undefined
  const xi = x[1]!.replace(/^0+/, '')
  const yi = y[1]!.replace(/^0+/, '')
  if (xi.length !== yi.length) return xi.length < yi.length ? -1 : 1
  if (xi !== yi) return xi < yi ? -1 : 1
  const xf = (x[2] ?? '').replace(/0+$/, '')
  const yf = (y[2] ?? '').replace(/0+$/, '')
  return xf === yf ? 0 : xf < yf ? -1 : 1
}

function isPositive(amount: string): boolean {
  return (compareDecimal(amount, '0') ?? 0) > 0
}
