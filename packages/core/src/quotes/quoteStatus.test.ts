import { describe, expect, it } from 'vitest'
import { normalizeNotification } from '../protocol/normalizeNotification.js'
import type { RawPositionNotification } from '../protocol/types.js'
import type { QuoteStatus } from './QuoteState.js'
import { START, type StatusFold, compareDecimal, nextStatus } from './quoteStatus.js'

const account = '0x1111111111111111111111111111111111111111'
let t = 1_700_000_000
const n = (action: string, status: string, extra: RawPositionNotification = {}) =>
  normalizeNotification({ quote_id: 7, last_seen_action: action, action_status: status, modify_time: t++, ...extra }, { protocol: 'enigma', chainId: 1, solverId: 's', account })

/** Folds transitions from a given status (reached through a plain path) and returns the final status. */
function run(from: QuoteStatus, ...steps: ReturnType<typeof n>[]): QuoteStatus {
  let fold: StatusFold = { ...START, status: from, beforeCancel: from === 'cancelling' ? 'pending' : 'unknown', maxFilledOpen: from === 'open' || from === 'closing' ? '2' : null }
  for (const step of steps) fold = nextStatus(fold, step)
  return fold.status
}

describe('the quote status table (one row per test)', () => {
  it.each(['SendQuote', 'SendQuoteTransaction', 'InstantRFQ', 'FillLimitOrderOpen'])('%s seen → pending, failed → failed', (action) => {
    expect(run('unknown', n(action, 'seen'))).toBe('pending')
    expect(run('unknown', n(action, 'failed'))).toBe('failed')
    expect(run('pending', n(action, 'failed'))).toBe('failed')
  })
  it.each(['SendQuote', 'SendQuoteTransaction'])('%s success → pending, or open when already filled', (action) => {
    expect(run('unknown', n(action, 'success'))).toBe('pending')
    expect(run('pending', n(action, 'success', { filled_amount_open: '0' }))).toBe('pending')
    expect(run('pending', n(action, 'success', { filled_amount_open: '1.5' }))).toBe('open')
    expect(run('unknown', n('FillLimitOrderOpen', 'seen', { filled_amount_open: '3' }), n(action, 'success'))).toBe('open')
  })
  it.each(['InstantRFQ', 'FillLimitOrderOpen'])('%s success → open', (action) => {
    expect(run('pending', n(action, 'success'))).toBe('open')
    expect(run('unknown', n(action, 'success'))).toBe('open')
  })
  it.each(['RequestToClosePosition', 'InstantRequestToClosePosition'])('%s seen/success → closing, failed → open', (action) => {
    expect(run('open', n(action, 'seen'))).toBe('closing')
    expect(run('open', n(action, 'success'))).toBe('closing')
    expect(run('closing', n(action, 'failed'))).toBe('open')
  })
  it.each(['FillLimitOrderClose', 'FillOrderInstantClose', 'FillMarketOrderInstantClose'])('%s success → closed when the close fill reaches the largest open fill, else open', (action) => {
    const opened = n('InstantRFQ', 'success', { filled_amount_open: '2.50' })
    expect(run('unknown', opened, n(action, 'success', { filled_amount_close: '2.5' }))).toBe('closed')
    expect(run('unknown', opened, n(action, 'success', { filled_amount_close: '1' }))).toBe('open')
    // The largest open fill counts, even when a later report shows a smaller one.
    expect(run('unknown', opened, n(action, 'success', { filled_amount_open: '1', filled_amount_close: '1' }))).toBe('open')
    expect(run('closing', n(action, 'seen', { filled_amount_close: '2' }))).toBe('closing')
  })
  it('RequestToCancelQuote seen/success → cancelling; failed → back to where it was', () => {
    expect(run('pending', n('RequestToCancelQuote', 'seen'))).toBe('cancelling')
    expect(run('pending', n('RequestToCancelQuote', 'success'))).toBe('cancelling')
    expect(run('unknown', n('SendQuote', 'success'), n('RequestToCancelQuote', 'success'), n('RequestToCancelQuote', 'failed'))).toBe('pending')
  })
  it('RequestToCancelCloseRequest success → open', () => {
    expect(run('closing', n('RequestToCancelCloseRequest', 'success'))).toBe('open')
    expect(run('closing', n('RequestToCancelCloseRequest', 'seen'))).toBe('closing')
  })
  it('LiquidatePosition success → liquidated', () => {
    expect(run('open', n('LiquidatePosition', 'success'))).toBe('liquidated')
    expect(run('open', n('LiquidatePosition', 'seen'))).toBe('open')
  })
  it('cancelled only when a frame says so', () => {
    expect(run('cancelling', n('RequestToCancelQuote', 'cancelled'))).toBe('cancelled')
    expect(run('pending', n('SendQuote', 'canceled'))).toBe('cancelled')
  })
  it('a seen never moves a quote backwards', () => {
    expect(run('open', n('FillLimitOrderOpen', 'seen'))).toBe('open')
    expect(run('closing', n('InstantRFQ', 'seen'))).toBe('closing')
    expect(run('cancelling', n('SendQuote', 'seen'))).toBe('cancelling')
  })
  it('anything else keeps the status (unknown when there is none); settled is final', () => {
    expect(run('unknown', n('UnlockQuote', 'success'))).toBe('unknown')
    expect(run('open', n('SomethingNew', 'success'))).toBe('open')
    expect(run('open', n('InstantRFQ', 'weird'))).toBe('open')
    expect(run('closed', n('InstantRFQ', 'success'))).toBe('closed')
    expect(run('failed', n('InstantRequestToClosePosition', 'failed'))).toBe('failed')
    expect(run('liquidated', n('RequestToCancelCloseRequest', 'success'))).toBe('liquidated')
  })
})

describe('compareDecimal', () => {
  it('compares amounts exactly, beyond double precision', () => {
    expect(compareDecimal('1.000000000000000001', '1')).toBe(1)
    expect(compareDecimal('1.0', '1')).toBe(0)
    expect(compareDecimal('0010.5', '10.50')).toBe(0)
    expect(compareDecimal('9.99', '10')).toBe(-1)
    expect(compareDecimal('.5', '0.45')).toBe(1)
    // Not a plain decimal: never compared (a status decision is never made on a guess).
    expect(compareDecimal('1e3', '999')).toBeUndefined()
    expect(compareDecimal('NaN', '1')).toBeUndefined()
    expect(compareDecimal('', '0')).toBeUndefined()
  })
})
