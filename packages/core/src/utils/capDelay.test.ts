import { afterEach, expect, it, vi } from 'vitest'
import { parseRetryAfter } from '../search/parseRetryAfter.js'
import { Timers } from '../transport/Timers.js'
import { MAX_DELAY_MS, capDelay } from './capDelay.js'
import { MAX_TIMEOUT_MS } from './setLongTimeout.js'

afterEach(() => vi.useRealTimers())

it('every delay is capped at an hour and never negative', () => {
  expect(MAX_DELAY_MS).toBe(3_600_000)
  expect([capDelay(-5), capDelay(0), capDelay(1_500), capDelay(9_999_999_000), capDelay(Number.POSITIVE_INFINITY)]).toEqual([0, 0, 1_500, 3_600_000, 3_600_000])
})

it('Retry-After: 9999999 (seconds) or a date years ahead is an hour, not 115 days', () => {
  const now = Date.UTC(2026, 10, 27)
  expect(parseRetryAfter('9999999', now)).toBe(3_600_000)
  expect(parseRetryAfter(new Date(now + 5 * 365 * 86_400_000).toUTCString(), now)).toBe(3_600_000)
  expect(parseRetryAfter('20', now)).toBe(20_000)
  expect(parseRetryAfter(new Date(now + 4_000).toUTCString(), now)).toBe(5_000)
})

it('Timers never hand setTimeout more than 2^31-1 ms (a longer delay fires after 1 ms: a timer loop)', () => {
  vi.useFakeTimers()
  const spy = vi.spyOn(globalThis, 'setTimeout')
  const timers = new Timers()
  let fired = 0
  timers.set(() => fired++, 9_999_999_000)
  expect(spy.mock.calls.at(-1)![1]).toBe(MAX_TIMEOUT_MS)
  vi.advanceTimersByTime(10_000)
  expect(fired).toBe(0)
})
