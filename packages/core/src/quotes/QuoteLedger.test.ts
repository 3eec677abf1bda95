import { isSameNotification } from '../protocol/notificationKey.js'
import { describe, expect, it } from 'vitest'
import { normalizeNotification } from '../protocol/normalizeNotification.js'
import type { Notification, RawPositionNotification } from '../protocol/types.js'
import { QuoteLedger } from './QuoteLedger.js'
import { byRecency } from './QuoteList.js'

const account = '0x1111111111111111111111111111111111111111'
const T = 1_700_000_000
const frame = (raw: RawPositionNotification, source: 'live' | 'backfill' = 'live'): Notification =>
  normalizeNotification(raw, { protocol: 'rasa', chainId: 1, solverId: 's', account, source })

// One instant open as a solver sends it: the temporary id first, then anchored with both ids.
const seen = frame({ id: 'a', quote_id: -1, temp_quote_id: -1, last_seen_action: 'InstantRFQ', action_status: 'seen', modify_time: T, create_time: T })
const success = frame({ id: 'b', quote_id: 1000, temp_quote_id: -1, last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: T + 1, create_time: T })
const filled = frame({ id: 'c', quote_id: 1000, temp_quote_id: -1, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', state_type: 'report', filled_amount_open: '1.5', modify_time: T + 2 })

describe('QuoteLedger', () => {
  it('joins the temporary and on-chain ids into one quote whose key never changes (temporary first)', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    const first = ledger.apply(seen)!
    expect(first).toMatchObject({ key: 't-1', quoteId: null, tempQuoteId: -1, status: 'pending' })
    const second = ledger.apply(success)!
    expect(second).toMatchObject({ key: 't-1', quoteId: 1000, tempQuoteId: -1, status: 'open' })
    expect(ledger.list().quotes()).toEqual([second])
    expect(ledger.size).toBe(1)
  })

  it('joins them in the other arrival order too, and orders the transitions by modify_time', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    ledger.apply(filled)
    ledger.apply(success)
    const state = ledger.apply(seen)!
    expect(ledger.size).toBe(1)
    expect(state.key).toBe('t-1')
    expect(state.transitions.map((x) => x.id)).toEqual(['a', 'b', 'c'])
    expect(state).toMatchObject({ quoteId: 1000, status: 'open', lastSeenAction: 'FillLimitOrderOpen', filledAmountOpen: '1.5', createTime: T, modifyTime: T + 2 })
  })

  it('joins two quotes seen under different ids once a frame links them', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    const onChainOnly = frame({ id: 'x', quote_id: 1000, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', modify_time: T + 2 })
    ledger.apply(seen)
    ledger.apply(onChainOnly)
    expect(ledger.list().quotes()).toHaveLength(2)
    const joined = ledger.apply(success)!
    expect(ledger.list().quotes()).toEqual([joined])
    expect(joined.transitions.map((x) => x.id)).toEqual(['a', 'b', 'x'])
  })

  it('derives the status in modify_time order whatever the arrival order', () => {
    const close = (status: string, time: number, fill?: string) =>
      frame({ quote_id: 1000, temp_quote_id: -1, last_seen_action: fill ? 'FillOrderInstantClose' : 'InstantRequestToClosePosition', action_status: status, modify_time: time, filled_amount_close: fill ?? null })
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    ledger.apply(close('success', T + 5, '1.5'))
    ledger.apply(close('seen', T + 3))
    ledger.apply(filled)
    expect(ledger.apply(seen)!.status).toBe('closed')
    expect(ledger.get({ quoteId: 1000 })!.transitions.map((x) => x.modifyTime)).toEqual([T, T + 2, T + 3, T + 5])
  })

  it('counts a transition once whether it came live, from history, or both', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    ledger.apply(seen)
    const state = ledger.apply(success)!
    // The stored row of the same transition, without an id, as rasa history returns it.
    const stored = frame({ quote_id: 1000, temp_quote_id: -1, last_seen_action: 'InstantRFQ', action_status: 'success', modify_time: T + 1, create_time: T }, 'backfill')
    expect(ledger.apply(stored)).toBeUndefined()
    expect(ledger.apply(success)).toBeUndefined()
    expect(ledger.get({ tempQuoteId: -1 })).toBe(state)
    expect(state.transitions).toHaveLength(2)
  })

  it('keeps the newest maxTransitions and still derives the status from the ones it dropped', () => {
    const ledger = new QuoteLedger(account, 3, isSameNotification)
    ledger.apply(frame({ quote_id: 5, last_seen_action: 'InstantRFQ', action_status: 'success', filled_amount_open: '4', modify_time: T }))
    for (let i = 1; i <= 5; i++) ledger.apply(frame({ quote_id: 5, last_seen_action: 'Heartbeat', action_status: 'success', modify_time: T + i }))
    const state = ledger.get({ quoteId: 5 })!
    expect(state.transitions.map((x) => x.modifyTime)).toEqual([T + 3, T + 4, T + 5])
    expect(state).toMatchObject({ status: 'open', filledAmountOpen: '4' })
    // Older than everything a full quote keeps: nothing to change.
    expect(ledger.apply(frame({ quote_id: 5, last_seen_action: 'InstantRFQ', action_status: 'seen', modify_time: T - 1 }))).toBeUndefined()
  })

  it('keeps the object of every quote that did not change, and builds each list version correctly', () => {
    const ledger = new QuoteLedger(account, 50, isSameNotification)
    for (let q = 1; q <= 300; q++) ledger.apply(frame({ quote_id: q, last_seen_action: 'SendQuote', action_status: 'seen', modify_time: T + q }))
    const before = ledger.list()
    const old = before.quotes()
    const versions: Array<[ReturnType<QuoteLedger['list']>, Map<number, unknown>]> = []
    let seed = 7
    const model = new Map(old.map((q) => [q.quoteId!, q]))
    for (let i = 0; i < 2_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      const q = (seed % 300) + 1
      const state = ledger.apply(frame({ quote_id: q, last_seen_action: 'SendQuote', action_status: 'success', modify_time: T + 300 + i }))!
      model.set(q, state)
      // Read only some versions, late, in any order: each must be what the book was then.
      if (i % 97 === 0) versions.push([ledger.list(), new Map(model)])
      // Some versions are read as they come (short chains), the saved ones only at the end (long ones).
      else if (i % 50 === 0) ledger.list().quotes()
      else ledger.list()
    }
    for (const [version, expected] of versions.reverse()) {
      const list = version.quotes()
      expect(list).toEqual([...expected.values()].sort(byRecency as never))
    }
    const now = ledger.list().quotes()
    const untouched = old.filter((q) => model.get(q.quoteId!) === q)
    expect(untouched.length).toBeGreaterThan(0)
    for (const q of untouched) expect(now).toContain(q)
    // Versions share their array with later ones; books hand readers copies (quotes.edges.test.ts).
    const sorted = [...now]
    const next = ledger.apply(frame({ quote_id: 1, last_seen_action: 'SendQuote', action_status: 'success', modify_time: T + 9_999 }))!
    expect(ledger.list().quotes()).toEqual([next, ...sorted.filter((q) => q.quoteId !== 1)])
  })
})
