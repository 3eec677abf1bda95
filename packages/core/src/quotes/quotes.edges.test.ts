import { isSameNotification } from '../protocol/notificationKey.js'
import { afterEach, describe, expect, it } from 'vitest'
import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { normalizeNotification } from '../protocol/normalizeNotification.js'
import type { Notification, RawPositionNotification } from '../protocol/types.js'
import { QuoteLedger } from './QuoteLedger.js'
import type { QuoteBook } from './QuoteState.js'

// Quote state under unlucky input: each case failed before its fix.

const account = '0x1111111111111111111111111111111111111111'
const T = 1_700_000_000
const frame = (raw: RawPositionNotification): Notification => normalizeNotification(raw, { protocol: 'rasa', chainId: 1, solverId: 's', account, source: 'live' })

describe('a reused temporary id', () => {
  it('once anchored to an on-chain id, a later open with that temp id and another on-chain id is a new quote', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    ledger.apply(frame({ id: 'a1', quote_id: -5, temp_quote_id: -5, last_seen_action: 'InstantRFQ', action_status: 'seen', modify_time: T }))
    ledger.apply(frame({ id: 'a2', quote_id: 100, temp_quote_id: -5, last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: T + 1 }))
    ledger.apply(frame({ id: 'a3', quote_id: 100, temp_quote_id: -5, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', state_type: 'report', filled_amount_open: '2', modify_time: T + 2 }))
    ledger.apply(frame({ id: 'a4', quote_id: 100, temp_quote_id: -5, last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_close: '2', modify_time: T + 3 }))
    // -5 is used again: first before the chain (temp id only), then anchored to 200
    ledger.apply(frame({ id: 'b1', quote_id: -5, temp_quote_id: -5, last_seen_action: 'InstantRFQ', action_status: 'seen', modify_time: T + 10 }))
    ledger.apply(frame({ id: 'b2', quote_id: 200, temp_quote_id: -5, last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: T + 11 }))
    const list = ledger.list().quotes()
    expect(list.map((q) => [q.quoteId, q.tempQuoteId, q.status, q.transitions.map((t) => t.id)])).toEqual([
      [200, -5, 'open', ['b1', 'b2']],
      [100, -5, 'closed', ['a1', 'a2', 'a3', 'a4']],
    ])
    expect(new Set(list.map((q) => q.key)).size).toBe(2)
    expect(ledger.get({ quoteId: 100 })!.status).toBe('closed')
    expect(ledger.get({ tempQuoteId: -5 })!.quoteId).toBe(200)
  })

  it('a frame anchored to a different on-chain id goes to that quote, not the older one with the temp id', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    ledger.apply(frame({ id: 'a', quote_id: 100, temp_quote_id: -5, last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: T }))
    ledger.apply(frame({ id: 'b', quote_id: 200, temp_quote_id: -5, last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: T + 5 }))
    expect(ledger.size).toBe(2)
    expect(ledger.get({ quoteId: 100 })!.transitions.map((t) => t.id)).toEqual(['a'])
  })
})

describe('amounts that are not plain decimals never settle a quote', () => {
  it.each([
    ['NaN', 'NaN', 'NaN'],
    ['1e400', '1e400', '1e400'],
    ['"10" vs "1e1"', '1e1', '10'],
    ['empty', '', '1'],
  ])('%s', (_name, open, close) => {
    const issues: string[] = []
    const ledger = new QuoteLedger(account, 50, isSameNotification, (message) => issues.push(message))
    ledger.apply(frame({ id: 'o', quote_id: 1, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', state_type: 'report', filled_amount_open: open, modify_time: T }))
    const state = ledger.apply(frame({ id: 'c', quote_id: 1, last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_close: close, modify_time: T + 1 }))!
    expect(state.settled).toBe(false)
    expect(state.status).not.toBe('closed')
    // reported once for the quote, however many frames carry bad amounts
    ledger.apply(frame({ id: 'c2', quote_id: 1, last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_close: close, modify_time: T + 2 }))
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatch(/quote 1.*not a plain decimal/)
  })

  it('plain decimals still compare exactly (trailing zeros, leading zeros, 18 decimals)', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    ledger.apply(frame({ id: 'o', quote_id: 1, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', state_type: 'report', filled_amount_open: '0012.500000000000000001', modify_time: T }))
    expect(ledger.apply(frame({ id: 'c', quote_id: 1, last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_close: '12.5', modify_time: T + 1 }))!.status).toBe('open')
    expect(ledger.apply(frame({ id: 'd', quote_id: 1, last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_close: '12.5000000000000000010', modify_time: T + 2 }))!.status).toBe('closed')
  })
})

describe('books', () => {
  let live: Live
  afterEach(() => live?.stop())

  it('every book hands out its own array, also when only its status changed', async () => {
    live = await startLive({ reconnect: { baseDelayMs: 50, maxDelayMs: 100 } })
    const books = record(live.client.quotes({ account: accounts[0], solverId: 'beta' }))
    await books.until((v) => v.at(-1)?.ready === true)
    await live.rasa.instantOpen(accounts[0])
    await books.until((v) => v.at(-1)?.quotes.length === 1)
    const before = books.values.length
    await live.rasa.dropAll(1012)
    await books.until((v) => v.slice(before).some((b) => b.status === 'reconnecting'))
    const [a, b] = [books.values[before - 1]!, books.values.slice(before).find((x) => x.status === 'reconnecting')!]
    expect(a.quotes).not.toBe(b.quotes)
    const kept = b.quotes.length
    ;(a.quotes as QuoteBook['quotes'][number][]).splice(0)
    expect(b.quotes).toHaveLength(kept)
    expect(a.quotes).toBe(a.quotes)
  })

  it.each(['enigma', 'rasa'] as const)('%s: live frames of one quote at t, t+10, t+5 (a liquidation): the book follows modify_time, nothing is counted stale', async (protocol) => {
    live = await startLive()
    const sim = live.sims[protocol]
    const books = record(live.client.quotes({ account: accounts[0], solverId: live.solverOf[protocol] }))
    await books.until((v) => v.at(-1)?.ready === true)
    const t = Math.floor(Date.now() / 1000)
    const base = { quote_id: 77, temp_quote_id: -77, counterparty_address: accounts[0] }
    await sim.publish({ ...base, id: 'f1', last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: t })
    await sim.publish({ ...base, id: 'f2', last_seen_action: 'RequestToClosePosition', action_status: 'seen', modify_time: t + 10 })
    await sim.publish({ ...base, id: 'f3', last_seen_action: 'LiquidatePosition', action_status: 'success', modify_time: t + 5 })
    await books.until((v) => v.at(-1)?.quotes[0]?.transitions.length === 3)
    const quote = books.values.at(-1)!.quotes[0]!
    expect(quote.status).toBe('liquidated')
    expect(quote.transitions.map((x) => x.id)).toEqual(['f1', 'f3', 'f2'])
    expect(live.client.stats().frames.dropped.stale).toBe(0)
  })
})
