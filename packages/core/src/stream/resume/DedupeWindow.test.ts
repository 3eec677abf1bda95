import { describe, expect, it } from 'vitest'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import type { Notification } from '../../protocol/types.js'
import { DedupeWindow } from './DedupeWindow.js'

const account = '0xAbC0000000000000000000000000000000000001'
const note = (quote: number, time: number, id: string | null = `id-${quote}-${time}`, source: 'live' | 'backfill' = 'backfill'): Notification =>
  normalizeNotification({ id, quote_id: quote, modify_time: time, action_status: 'success', last_seen_action: 'InstantRFQ' }, { protocol: 'rasa', chainId: 1, solverId: 's', account, source })

describe('DedupeWindow', () => {
  it('stays bounded over a long run (counts are asserted once, so the test does not depend on machine speed)', () => {
    const window = new DedupeWindow(100)
    let wrong = 0
    let peak = 0
    for (let i = 0; i < 5_000; i++) {
      const n = note(i % 500, 1_763_700_000 + i)
      if (window.verdict(n, true) !== 'new') wrong++
      window.remember(n, true)
      if (window.verdict(n, true) !== 'duplicate') wrong++
      peak = Math.max(peak, window.entries)
    }
    expect(wrong).toBe(0)
    expect(peak).toBeLessThanOrEqual(300)
  })

  it('matches a stored row and its live frame by content, with or without an id; an id reused for other content is a new transition', () => {
    const window = new DedupeWindow(10)
    expect(window.remember(note(1, 100, 'abc'), true)).toBe(false)
    expect(window.verdict(note(2, 200, 'abc'), true)).toBe('new')
    expect(window.remember(note(2, 200, 'abc'), true)).toBe(true) // counted as idReused by the stream
    expect(window.verdict(note(1, 100, null), true)).toBe('duplicate')
    expect(window.verdict(note(1, 100, 'another-id'), true)).toBe('duplicate')
    expect(window.verdict(note(1, 101, null), true)).toBe('new')
    expect(window.verdict(note(1, 99, null), true)).toBe('stale')
    // a live frame is never stale: a late one is a real transition
    expect(window.verdict(note(1, 99, null, 'live'), true)).toBe('new')
    // an implausible time neither orders nor is ordered
    expect(window.verdict(note(1, 99, null), false)).toBe('new')
    window.remember(note(1, 5_000_000_000, 'future'), false)
    expect(window.verdict(note(1, 150, null), true)).toBe('new')
  })

  it('compares amounts as decimals: "1.50" and "1.5" are one fill, "1.51" another', () => {
    const fill = (amount: string) =>
      normalizeNotification({ quote_id: 9, modify_time: 1_763_700_000, action_status: 'success', last_seen_action: 'FillLimitOrderOpen', state_type: 'report', filled_amount_open: amount }, { protocol: 'rasa', chainId: 1, solverId: 's', account, source: 'backfill' })
    const window = new DedupeWindow(10)
    window.remember(fill('1.50'), true)
    expect(window.verdict(fill('1.5'), true)).toBe('duplicate')
    expect(window.verdict(fill('01.500'), true)).toBe('duplicate')
    expect(window.verdict(fill('1.51'), true)).toBe('new')
  })

  it('forgets by time what no later backfill can return: memory does not grow with a busy stream', () => {
    const window = new DedupeWindow(2_048)
    const t0 = 1_763_700_000
    for (let i = 0; i < 10_000; i++) {
      window.remember(note(i % 50, t0 + Math.floor(i / 10)), true)
      if (i % 10 === 9) window.forgetBefore(t0 + Math.floor(i / 10) - 5)
    }
    // ten a second for 1,000 seconds, forgetting what is more than 5 s old: about 60 entries, not 2,048
    expect(window.entries).toBeLessThan(150)
    expect(window.verdict(note(49, t0 + 999), true)).toBe('duplicate')
  })
})
