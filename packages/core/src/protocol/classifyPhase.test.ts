import { describe, expect, it } from 'vitest'
import { classifyPhase } from './classifyPhase.js'

describe('classifyPhase', () => {
  it.each([
    ['SendQuote', 'open'],
    ['SendQuoteTransaction', 'open'],
    ['FillLimitOrderOpen', 'open'],
    ['InstantRFQ', 'open'],
    ['RequestToClosePosition', 'close'],
    ['InstantRequestToClosePosition', 'close'],
    ['FillLimitOrderClose', 'close'],
    ['FillOrderInstantClose', 'close'],
    ['FillMarketOrderInstantClose', 'close'],
    ['RequestToCancelQuote', 'cancel'],
    ['RequestToCancelCloseRequest', 'cancel'],
    ['UnlockQuote', 'cancel'],
    ['LiquidatePosition', 'liquidation'],
    ['FailedToPutOnBinance', 'other'],
    ['constructor', 'other'],
    ['__proto__', 'other'],
    [null, 'other'],
    [undefined, 'other'],
  ] as const)('%s → %s', (action, phase) => {
    expect(classifyPhase(action)).toBe(phase)
  })

  it('is fill only for an open-phase report that carries a filled amount', () => {
    expect(classifyPhase('InstantRFQ', { stateType: 'report', filledAmountOpen: '1.5' })).toBe('fill')
    expect(classifyPhase('FillLimitOrderOpen', { stateType: 'report', filledAmountOpen: '0' })).toBe('fill')
    expect(classifyPhase('InstantRFQ', { stateType: 'alert', filledAmountOpen: '1.5' })).toBe('open')
    expect(classifyPhase('InstantRFQ', { stateType: 'report', filledAmountOpen: null })).toBe('open')
    expect(classifyPhase('FillLimitOrderClose', { stateType: 'report', filledAmountOpen: '1' })).toBe('close')
  })
})
