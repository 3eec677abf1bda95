import { describe, expect, it } from 'vitest'
import { ACCOUNT_A, ACCOUNT_B, enigmaData, rasaAnchored, rasaPreChain } from '../../test/fixtures.js'
import { normalizeNotification } from './normalizeNotification.js'
import { parseNotificationFrame } from './parseNotificationFrame.js'

const rasaContext = { protocol: 'rasa', chainId: 42161, solverId: 'beta', account: ACCOUNT_B } as const
const enigmaContext = { protocol: 'enigma', chainId: 42161, solverId: 'alpha', account: ACCOUNT_A } as const

describe('normalizeNotification', () => {
  it('normalizes an enigma frame, decimals kept exact', () => {
    const n = normalizeNotification(enigmaData, enigmaContext)
    expect(n).toEqual({
      type: 'success',
      phase: 'fill',
      quoteId: 9565,
      tempQuoteId: -12,
      onChain: true,
      lastSeenAction: 'SendQuote',
      actionStatus: 'success',
      account: ACCOUNT_A,
      counterpartyAddress: enigmaData.counterparty_address,
      stateType: 'report',
      failureType: null,
      failureMessage: null,
      errorCode: null,
      filledAmountOpen: '125.5',
      filledAmountClose: null,
      avgPriceOpen: '64123.25',
      avgPriceClose: null,
      orderType: null,
      version: 3,
      vaAddress: enigmaData.va_address,
      createTime: 1_763_700_000,
      modifyTime: 1_763_700_004,
      id: 'e0f1c2d3-0001',
      protocol: 'enigma',
      chainId: 42161,
      solverId: 'alpha',
      source: 'live',
      raw: enigmaData,
    })
    expect(Object.isFrozen(n)).toBe(true)
  })

  it('normalizes a pre-chain rasa frame: negative quote_id is the temporary id, numeric 0 sentinels are null', () => {
    const n = normalizeNotification(rasaPreChain, rasaContext)
    expect(n).toMatchObject({
      quoteId: -42,
      tempQuoteId: -42,
      onChain: false,
      errorCode: null,
      filledAmountOpen: null,
      filledAmountClose: null,
      avgPriceOpen: null,
      avgPriceClose: null,
      orderType: 1,
      type: 'seen',
      phase: 'open',
      account: ACCOUNT_B,
    })
  })

  it('normalizes an anchored rasa frame: numbers other than 0 become strings', () => {
    const n = normalizeNotification(rasaAnchored, rasaContext)
    expect(n).toMatchObject({ quoteId: 777, tempQuoteId: -42, onChain: true, filledAmountOpen: '0.75', avgPriceOpen: '3012.5', phase: 'fill' })
  })

  it('derives quoteId from a pre-chain rasa frame without temp_quote_id', () => {
    const n = normalizeNotification({ quote_id: -9 }, rasaContext)
    expect([n.quoteId, n.tempQuoteId, n.onChain]).toEqual([-9, -9, false])
  })

  it('falls back to enigma envelope identifiers, and to 0 when nothing identifies the quote', () => {
    const n = normalizeNotification({ action_status: 'failed' }, { ...enigmaContext, envelope: { primary_identifier: 0, secondary_identifier: -5 } })
    expect([n.quoteId, n.tempQuoteId, n.onChain, n.type]).toEqual([-5, -5, false, 'failed'])
    const anchored = normalizeNotification({ action_status: 'success' }, { ...enigmaContext, envelope: { primary_identifier: 9565, secondary_identifier: -12 } })
    expect([anchored.quoteId, anchored.tempQuoteId, anchored.onChain]).toEqual([9565, -12, true])
    const none = normalizeNotification({}, enigmaContext)
    expect([none.quoteId, none.tempQuoteId, none.type, none.phase]).toEqual([0, null, 'unknown', 'other'])
  })

  it("reads a negative quote_id as the temporary id on rasa only (enigma carries its temporary id apart)", () => {
    const rasa = normalizeNotification({ quote_id: -9 }, rasaContext)
    const enigma = normalizeNotification({ quote_id: -9 }, enigmaContext)
    expect([rasa.quoteId, rasa.tempQuoteId]).toEqual([-9, -9])
    expect([enigma.quoteId, enigma.tempQuoteId]).toEqual([0, null])
  })

  it('refuses a protocol that is not registered with INVALID_PARAMETERS naming the registered ones', () => {
    const context = { ...rasaContext, protocol: 'toy' as never }
    expect(() => normalizeNotification({ quote_id: 1 }, context)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('enigma, rasa') }))
  })

  it('keeps error codes other than 0 and failure details', () => {
    const n = normalizeNotification({ quote_id: 3, error_code: 1203, failure_type: 'INSUFFICIENT_MARGIN', failure_message: 'no margin' }, enigmaContext)
    expect([n.errorCode, n.failureType, n.failureMessage]).toEqual([1203, 'INSUFFICIENT_MARGIN', 'no margin'])
  })

  it('copies known fields only: hostile keys never reach the notification', () => {
    const raw = parseNotificationFrame('{"quote_id":1,"__proto__":{"type":"failed"},"constructor":"x","polluted":true}', 'rasa')!
    const n = normalizeNotification(raw, rasaContext)
    expect(n.type).toBe('unknown')
    expect(Object.keys(n)).not.toContain('polluted')
    expect(Object.getPrototypeOf(n)).toBe(Object.prototype)
    expect(({} as { type?: unknown }).type).toBeUndefined()
  })
})
