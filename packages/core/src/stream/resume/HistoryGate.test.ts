import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { Timers } from '../../transport/Timers.js'
import { capDelay } from '../../utils/capDelay.js'
import { HistoryGate } from './HistoryGate.js'
import { resolveHistoryConcurrency } from './historyConcurrency.js'

// The gate measures waits on the monotonic clock (performance.now): faked along with the timers and Date.
beforeEach(() => vi.useFakeTimers({ now: 1_000_000, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] }))

/** The client's count of polling streams, as resumeFeature keeps it. */
function pollRate() {
  const intervals = new Map<object, number>()
  return {
    rate: 0,
    polling(stream: object, intervalMs: number | undefined) {
      if (intervalMs === undefined) intervals.delete(stream)
      else intervals.set(stream, intervalMs)
      this.rate = [...intervals.values()].reduce((sum, ms) => sum + 1 / ms, 0)
    },
  }
}
afterEach(() => vi.useRealTimers())

/** How long a request may wait in these tests unless a test says otherwise: longer than any of them runs. */
const WAIT = 60_000
/** The error of a request that could not start in time, as resumeFeature makes it. */
const late = (waitedMs: number, retryAfterMs: number | undefined) => Object.assign(new Error(`late after ${waitedMs} ms`), { code: 'TIMEOUT', retryAfterMs })
const kit = { late, cap: capDelay }

/** A task that records when it started and settles when told. */
function tasks() {
  const started: Array<{ name: string; at: number }> = []
  const settle = new Map<string, { ok: () => void; fail: (e: unknown) => void }>()
  const make = (name: string) => () =>
    new Promise<string>((resolve, reject) => {
      started.push({ name, at: Date.now() })
      settle.set(name, { ok: () => resolve(name), fail: reject })
    })
  return { started, settle, make }
}

it('keeps at most `concurrency` requests in flight; the rest start in order as slots free', async () => {
  const timers = new Timers()
  const gate = new HistoryGate(2, timers, pollRate(), kit)
  const { started, settle, make } = tasks()
  const signal = new AbortController().signal
  const results = ['a', 'b', 'c', 'd'].map((n) => gate.run(make(n), signal, false, WAIT))
  await vi.advanceTimersByTimeAsync(0)
  expect(started.map((s) => s.name)).toEqual(['a', 'b'])
  settle.get('b')!.ok()
  await vi.advanceTimersByTimeAsync(0)
  expect(started.map((s) => s.name)).toEqual(['a', 'b', 'c'])
  settle.get('a')!.ok()
  settle.get('c')!.ok()
  await vi.advanceTimersByTimeAsync(0)
  settle.get('d')!.ok()
  expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd'])
  expect(timers.pending).toBe(0)
})

it('spreads polls over the interval of the streams polling (with a tenth of headroom); a reconnect backfill is not spaced', async () => {
  const pollers = pollRate()
  const gate = new HistoryGate(100, new Timers(), pollers, kit)
  const streams = Array.from({ length: 10 }, () => ({}))
  for (const s of streams) pollers.polling(s, 1_000)
  const { started, make } = tasks()
  const signal = new AbortController().signal
  for (let i = 0; i < 10; i++) void gate.run(make(`poll-${i}`), signal, true, WAIT)
  void gate.run(make('reconnect'), signal, false, WAIT)
  await vi.advanceTimersByTimeAsync(0)
  // 10 streams every 1,000 ms: a poll every 110 ms at most; the reconnect backfill goes at once.
  expect(started.map((s) => s.name)).toEqual(['poll-0', 'reconnect'])
  await vi.advanceTimersByTimeAsync(2_000)
  const polls = started.filter((s) => s.name.startsWith('poll'))
  expect(polls).toHaveLength(10)
  for (let i = 1; i < polls.length; i++) expect(polls[i]!.at - polls[i - 1]!.at).toBeGreaterThanOrEqual(110)
  // Streams that stop polling widen nothing any more: with none left, polls are not spaced.
  for (const s of streams) pollers.polling(s, undefined)
  expect(pollers.rate).toBe(0)
  void gate.run(make('late-1'), signal, true, WAIT)
  void gate.run(make('late-2'), signal, true, WAIT)
  await vi.advanceTimersByTimeAsync(200)
  expect(started.slice(-2).map((s) => s.name)).toEqual(['late-1', 'late-2'])
})

it('a Retry-After holds every request of the endpoint until it has passed', async () => {
  const gate = new HistoryGate(4, new Timers(), pollRate(), kit)
  const { started, settle, make } = tasks()
  const signal = new AbortController().signal
  const first = gate.run(make('throttled'), signal, false, WAIT)
  await vi.advanceTimersByTimeAsync(0)
  settle.get('throttled')!.fail(Object.assign(new Error('429'), { retryAfterMs: 3_000 }))
  await expect(first).rejects.toThrow('429')
  void gate.run(make('next'), signal, false, WAIT)
  await vi.advanceTimersByTimeAsync(2_999)
  expect(started.map((s) => s.name)).toEqual(['throttled'])
  await vi.advanceTimersByTimeAsync(1)
  expect(started.map((s) => s.name)).toEqual(['throttled', 'next'])
})

it('an abort takes a waiting request out of the queue (rejected with the reason), and leaves no timer', async () => {
  const timers = new Timers()
  const pollers = pollRate()
  pollers.polling({}, 10_000)
  const gate = new HistoryGate(1, timers, pollers, kit)
  const { started, make } = tasks()
  const busy = new AbortController()
  void gate.run(make('first-poll'), busy.signal, true, WAIT)
  const waiting = new AbortController()
  const second = gate.run(make('second-poll'), waiting.signal, true, WAIT)
  waiting.abort(new Error('released'))
  await expect(second).rejects.toThrow('released')
  expect(gate.queued).toBe(0)
  expect(timers.pending).toBe(0)
  expect(started.map((s) => s.name)).toEqual(['first-poll'])
})

it('search.concurrency must be a positive integer', () => {
  expect(resolveHistoryConcurrency(undefined)).toBe(6)
  expect(resolveHistoryConcurrency(64)).toBe(64)
  for (const bad of [0, 1.5, -1, '4', Object.create(null)]) expect(() => resolveHistoryConcurrency(bad)).toThrowError(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
})

it('a request that has not started within its wait fails then (TIMEOUT), not before; the others keep their place', async () => {
  const timers = new Timers()
  const gate = new HistoryGate(1, timers, pollRate(), kit)
  const { started, settle, make } = tasks()
  const signal = new AbortController().signal
  void gate.run(make('busy'), signal, false, WAIT)
  const failedAt: number[] = []
  const waiting = gate.run(make('waits'), signal, false, 1_000).catch((e: { code: string; retryAfterMs?: number }) => {
    failedAt.push(Date.now())
    return e
  })
  await vi.advanceTimersByTimeAsync(999)
  expect(failedAt).toEqual([])
  await vi.advanceTimersByTimeAsync(2)
  expect(failedAt).toHaveLength(1)
  expect(failedAt[0]).toBeGreaterThanOrEqual(1_001_000)
  expect(failedAt[0]).toBeLessThanOrEqual(1_001_001)
  expect(await waiting).toMatchObject({ code: 'TIMEOUT', retryAfterMs: undefined, message: expect.stringMatching(/^late after 100[01] ms$/) })
  expect(gate.queued).toBe(0)
  settle.get('busy')!.ok()
  await vi.advanceTimersByTimeAsync(0)
  expect(started.map((s) => s.name)).toEqual(['busy'])
  expect(timers.pending).toBe(0)
})

it('a Retry-After longer than the wait fails every waiting request at once, with what is left of it; a request asked meanwhile too', async () => {
  const gate = new HistoryGate(1, new Timers(), pollRate(), kit)
  const { started, settle, make } = tasks()
  const signal = new AbortController().signal
  const first = gate.run(make('throttled'), signal, false, 1_000)
  const queued = ['q1', 'q2', 'q3'].map((n) => gate.run(make(n), signal, false, 1_000).catch((e: unknown) => e))
  await vi.advanceTimersByTimeAsync(100)
  settle.get('throttled')!.fail(Object.assign(new Error('429'), { retryAfterMs: 20_000 }))
  await expect(first).rejects.toThrow('429')
  await vi.advanceTimersByTimeAsync(0)
  // Failed at once (100 ms after asking), each with the Retry-After still to run.
  for (const e of await Promise.all(queued)) expect(e).toMatchObject({ code: 'TIMEOUT', retryAfterMs: 20_000, message: 'late after 100 ms' })
  const later = await gate.run(make('later'), signal, false, 1_000).catch((e: unknown) => e)
  expect(later).toMatchObject({ code: 'TIMEOUT', retryAfterMs: 20_000 })
  expect(started.map((s) => s.name)).toEqual(['throttled'])
  // A wait longer than the Retry-After is held, then runs.
  const patient = gate.run(make('patient'), signal, false, 30_000)
  await vi.advanceTimersByTimeAsync(20_000)
  expect(started.map((s) => s.name)).toEqual(['throttled', 'patient'])
  settle.get('patient')!.ok()
  expect(await patient).toBe('patient')
})

it('a Retry-After of 9,999,999 s is capped at an hour: no timer past 2^31-1 ms, no timer loop', async () => {
  const delays: number[] = []
  const timers = new Timers()
  const set = timers.set.bind(timers)
  timers.set = (fn, ms) => {
    delays.push(ms)
    return set(fn, ms)
  }
  const gate = new HistoryGate(1, timers, pollRate(), kit)
  const { started, settle, make } = tasks()
  const signal = new AbortController().signal
  const first = gate.run(make('throttled'), signal, false, WAIT)
  await vi.advanceTimersByTimeAsync(0)
  settle.get('throttled')!.fail(Object.assign(new Error('429'), { retryAfterMs: 9_999_999_000 }))
  await expect(first).rejects.toThrow('429')
  const patient = gate.run(make('patient'), signal, false, 2 * 3_600_000)
  await vi.advanceTimersByTimeAsync(10_000)
  // One wake for the hour, none in a loop.
  expect(delays.length).toBeLessThanOrEqual(2)
  for (const ms of delays) expect(ms).toBeLessThanOrEqual(3_600_000)
  await vi.advanceTimersByTimeAsync(3_600_000)
  expect(started.map((s) => s.name)).toEqual(['throttled', 'patient'])
  settle.get('patient')!.ok()
  await patient
})

it('a Retry-After is waited out on the monotonic clock: the wall clock stepping back 10 minutes meanwhile does not stall history for as long', async () => {
  const timers = new Timers()
  const gate = new HistoryGate(1, timers, pollRate(), kit)
  const { started, settle, make } = tasks()
  const signal = new AbortController().signal
  const first = gate.run(make('a'), signal, false, WAIT).catch((e: unknown) => e)
  await vi.advanceTimersByTimeAsync(0)
  settle.get('a')!.fail(Object.assign(new Error('429'), { retryAfterMs: 2_000 }))
  await first
  // NTP steps the wall clock back ten minutes while the endpoint's Retry-After runs.
  vi.setSystemTime(Date.now() - 600_000)
  const second = gate.run(make('b'), signal, false, WAIT)
  await vi.advanceTimersByTimeAsync(1_900)
  expect(started.map((s) => s.name)).toEqual(['a'])
  await vi.advanceTimersByTimeAsync(200)
  expect(started.map((s) => s.name)).toEqual(['a', 'b'])
  settle.get('b')!.ok()
  expect(await second).toBe('b')
})
