import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ServiceRequestError } from '../../errors/ServiceRequestError.js'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import type { Notification } from '../../protocol/types.js'
import type { BackfillRequest, BackfillResult } from '../../search/backfill.js'
import { Timers } from '../../transport/Timers.js'
import { type ClientStats, createClientStats } from '../ClientStats.js'
import type { NotificationEvent, StatusEvent } from '../NotificationEvent.js'
import { type CheckpointStore, memoryCheckpoints } from './CheckpointStore.js'
import { ResumeStream, type ResumeSettings } from './ResumeStream.js'

const account = '0xAbC0000000000000000000000000000000000001'
const T = 1_763_700_000
const note = (quote: number, time: number, id: string | null = `id-${quote}-${time}`, source: 'live' | 'backfill' = 'live'): Notification =>
  normalizeNotification({ id, quote_id: quote, modify_time: time, action_status: 'success', last_seen_action: 'InstantRFQ' }, { protocol: 'rasa', chainId: 1, solverId: 's', account, source })
const status = (s: 'open' | 'reconnecting' | 'closed', attempt = 0): StatusEvent => ({ type: 'status', status: s, attempt })
const rows = (notifications: Notification[], truncated?: { left: number }): BackfillResult => ({ notifications, truncated, foreign: 0, overlong: 0 })

type Fetch = (request: BackfillRequest) => Promise<BackfillResult>

function setup(fetch: Fetch, { since, ...settings }: Partial<ResumeSettings> & { since?: number } = {}, shared?: ResumeSettings) {
  const events: NotificationEvent[] = []
  const timers = new Timers()
  const stats = { ...createClientStats(), timers: 0 } as ClientStats
  const stream = new ResumeStream(
    {
      notification: (notification) => events.push({ type: 'notification', notification }),
      event: (e) => events.push(e),
      complete: () => events.push({ type: 'status', status: 'closed', attempt: -1 }),
    },
    {
      fetch,
      timers,
      backoff: { baseDelayMs: 100, maxDelayMs: 1000 },
      random: () => 1,
      stats,
      keyOf: (of) => `1:s:${of.toLowerCase()}`,
    },
    account,
    shared ?? { checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: undefined, dedupeWindow: 64, checkpointTimeoutMs: 10_000, poll: undefined, ...settings },
  )
  stream.start(since)
  const delivered = () => events.flatMap((e) => (e.type === 'notification' ? [`${e.notification.quoteId}@${e.notification.modifyTime! - T}:${e.notification.source}`] : []))
  const backfills = () => events.flatMap((e) => (e.type === 'status' && e.backfill ? [e.backfill] : []))
  const errors = () => events.flatMap((e) => (e.type === 'error' ? [e.error] : []))
  return { events, timers, stream, stats, delivered, backfills, errors }
}

/** A fetch whose answers the test gives, one call at a time. */
function pendingFetch() {
  const calls: Array<BackfillRequest & { resolve: (r: BackfillResult) => void; reject: (e: unknown) => void }> = []
  const fetch: Fetch = (request) => new Promise((resolve, reject) => calls.push({ ...request, resolve, reject }))
  return { calls, fetch }
}

beforeEach(() => vi.useFakeTimers({ now: T * 1000 }))
afterEach(() => vi.useRealTimers())

describe('ResumeStream after a reconnect', () => {
  it('backfills from the watermark, holds live frames meanwhile, and delivers the union once, in order', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, backfills, stats } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 10))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    expect(calls.map((c) => c.since)).toEqual([T + 10])
    stream.notification(note(2, T + 30)) // live, held
    expect(delivered()).toEqual(['1@10:live'])
    calls[0]!.resolve(rows([note(1, T + 10, 'id-1-1763700010', 'backfill'), note(2, T + 20, undefined, 'backfill'), note(2, T + 30, 'id-2-1763700030', 'backfill')]))
    await vi.runAllTimersAsync()
    // what came both live (held) and from history counts as live: recovered is only what live missed
    expect(delivered()).toEqual(['1@10:live', '2@20:backfill', '2@30:live'])
    expect(backfills()).toEqual([
      { state: 'started', since: T + 10 },
      { state: 'finished', since: T + 10, recovered: 1, stale: 0 },
    ])
    expect(stats.frames.dropped.duplicate).toBe(2)
    expect(stats.backfills).toMatchObject({ runs: 1, recovered: 1 })
  })

  it('rows the stream already delivered do not count against maxBackfillRows: it tells history what it knows', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 10, 'seen'))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    expect(calls[0]!.known?.(note(1, T + 10, 'seen'))).toBe(true)
    expect(calls[0]!.known?.(note(1, T + 11, 'other'))).toBe(false)
  })

  it('a transition older than what its quote already delivered is left out, counted and reported as stale', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, backfills, stats } = setup(fetch, { maxHeldFrames: 1 })
    stream.event(status('open'))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    stream.notification(note(5, T + 50, 'late')) // the held cap (1) releases it at once
    calls[0]!.resolve(rows([note(5, T + 40, 'x', 'backfill'), note(6, T + 41, 'y', 'backfill')]))
    await vi.runAllTimersAsync()
    expect(delivered()).toEqual(['5@50:live', '6@41:backfill'])
    expect(backfills().at(-1)).toEqual({ state: 'finished', since: T - 2, recovered: 1, stale: 1 })
    expect(stats.frames.dropped.stale).toBe(1)
  })

  it('a failed backfill is an error event, live frames flow, and it is retried with backoff from the same gap', async () => {
    const since: number[] = []
    const { stream, delivered, errors, timers, stats } = setup(async (request) => {
      since.push(request.since)
      if (since.length === 1) throw new Error('search down')
      return rows([note(3, T + 20, 'r', 'backfill')])
    })
    stream.event(status('open'))
    stream.notification(note(1, T + 10))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    stream.notification(note(2, T + 40))
    await vi.advanceTimersByTimeAsync(0)
    expect(errors().map((e) => e.message)).toEqual(['Backfill failed: Error: search down'])
    expect(delivered()).toEqual(['1@10:live', '2@40:live'])
    expect(timers.pending).toBe(1)
    await vi.advanceTimersByTimeAsync(100)
    expect(since).toEqual([T + 10, T + 10])
    expect(delivered()).toEqual(['1@10:live', '2@40:live', '3@20:backfill'])
    expect(stats.backfills).toMatchObject({ runs: 2, failed: 1 })
    expect(timers.pending).toBe(0)
  })

  it('a 429 retry waits at least Retry-After, not just the backoff', async () => {
    let calls = 0
    const { stream } = setup(async () => {
      if (++calls === 1) throw new ServiceRequestError('HTTP_STATUS', 'busy', { method: 'POST', url: 'x', status: 429, retryAfterMs: 3_000 })
      return rows([])
    })
    stream.event(status('open'))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    await vi.advanceTimersByTimeAsync(2_999)
    expect(calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(calls).toBe(2)
  })

  it('a drop during a backfill does not throw it away: it finishes, then the next one covers the new gap', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, stats } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 10))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    stream.notification(note(2, T + 40)) // held, before the second drop: the running backfill covers it
    stream.notification(note(3, T + 41)) // held, before the second drop, of a quote with nothing after it
    stream.event(status('reconnecting', 1))
    expect(calls[0]!.signal.aborted).toBe(false)
    expect(delivered()).toEqual(['1@10:live'])
    stream.event(status('open', 2))
    expect(calls).toHaveLength(1) // the running one goes on; the next waits for it
    stream.notification(note(2, T + 50)) // held after the second drop: waits for the next backfill
    calls[0]!.resolve(rows([note(2, T + 20, 'a', 'backfill'), note(2, T + 30, 'b', 'backfill'), note(2, T + 40, 'id-2-1763700040', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    // quote 3 goes out; quote 2 has a frame from after the drop, so all of it waits for the next backfill (its order holds)
    expect(delivered()).toEqual(['1@10:live', '3@41:live'])
    // the second gap starts where the stream stood when the socket dropped the second time
    expect(calls.map((c) => c.since)).toEqual([T + 10, T + 10])
    calls[1]!.resolve(rows([note(2, T + 45, 'c', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@10:live', '3@41:live', '2@20:backfill', '2@30:backfill', '2@40:live', '2@45:backfill', '2@50:live'])
    expect(stats.backfills).toMatchObject({ runs: 2, recovered: 3 })
  })

  it('a history row newer than a frame held after a drop under the backfill waits with it: the quote stays in order (chaos seed 505)', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, backfills } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 10))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    stream.event(status('reconnecting', 2))
    stream.event(status('open', 2))
    stream.notification(note(5, T + 20, 'live-20'))
    calls[0]!.resolve(rows([note(5, T + 21, 'row-21', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@10:live'])
    calls[1]!.resolve(rows([]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@10:live', '5@20:live', '5@21:backfill'])
    expect(backfills().filter((b) => b.state === 'finished').map((b) => b.recovered)).toEqual([0, 1])
  })

  it('a stream that drops faster than one backfill round trip still delivers (nothing held for ever)', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 1))
    for (let i = 0; i < 5; i++) {
      stream.event(status('reconnecting', 1))
      stream.event(status('open', 1))
      stream.notification(note(10 + i, T + 10 + i))
    }
    expect(calls).toHaveLength(1)
    calls[0]!.resolve(rows([]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@1:live', '10@10:live'])
    calls[1]!.resolve(rows([]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@1:live', '10@10:live', '11@11:live', '12@12:live', '13@13:live', '14@14:live'])
  })

  it('held live frames are bounded: at maxHeldFrames they go out in order while the backfill goes on', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered } = setup(fetch, { maxHeldFrames: 3 })
    stream.event(status('open'))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    for (const t of [9, 7, 8, 10, 11]) stream.notification(note(t, T + t))
    expect(delivered()).toEqual(['7@7:live', '8@8:live', '9@9:live'])
    calls[0]!.resolve(rows([note(20, T + 5, 'h', 'backfill')]))
    await vi.runAllTimersAsync()
    expect(delivered()).toEqual(['7@7:live', '8@8:live', '9@9:live', '20@5:backfill', '10@10:live', '11@11:live'])
  })

  it('history pages longer than asked (cut by the backfill) are reported as INVALID_RESPONSE', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, errors } = setup(fetch)
    stream.event(status('open'))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    calls[0]!.resolve({ ...rows([note(1, T + 1, 'h', 'backfill')]), overlong: 4_900 })
    await vi.advanceTimersByTimeAsync(0)
    expect(errors().map((e) => [e.code, e.message.includes('4900 rows')])).toEqual([['INVALID_RESPONSE', true]])
  })

  it('a truncated backfill says so: status truncated with what is left, and a BACKFILL_TRUNCATED error', async () => {
    const { stream, backfills, errors, stats } = setup(async () => rows([note(1, T + 20, 'a', 'backfill')], { left: 1_234 }), { maxBackfillRows: 500 })
    stream.event(status('open'))
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    await vi.runAllTimersAsync()
    expect(backfills().at(-1)).toEqual({ state: 'truncated', since: T - 2, recovered: 1, stale: 0, left: 1_234 })
    expect(errors()).toEqual([expect.objectContaining({ code: 'BACKFILL_TRUNCATED', message: expect.stringMatching(/500 rows.*1234 rows of history left.*reload the snapshot/) })])
    expect(stats.backfills.truncated).toBe(1)
  })

  it('closing delivers what was held; release aborts, clears every timer and delivers nothing more', async () => {
    const first = setup(() => new Promise(() => {}))
    first.stream.event(status('open'))
    first.stream.event(status('reconnecting', 1))
    first.stream.event(status('open', 1))
    first.stream.notification(note(4, T + 40))
    expect(first.delivered()).toEqual([])
    first.stream.event(status('closed', 1))
    expect(first.delivered()).toEqual(['4@40:live'])

    const { calls, fetch } = pendingFetch()
    const second = setup(fetch, { sweepIntervalMs: 1000 })
    second.stream.event(status('open'))
    second.stream.event(status('reconnecting', 1))
    second.stream.event(status('open', 1))
    second.stream.notification(note(1, T + 1))
    second.stream.dispose()
    expect(calls[0]!.signal.aborted).toBe(true)
    expect(second.delivered()).toEqual([])
    expect(second.timers.pending).toBe(0)
  })
})

describe('ResumeStream on first load', () => {
  it('with `since`, holds live frames and backfills once the socket is subscribed: history and live join with no gap', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, backfills } = setup(fetch, { since: T + 5 })
    expect(calls).toEqual([]) // history is read only after the live subscription is in place
    stream.event(status('open'))
    expect(calls.map((c) => c.since)).toEqual([T + 5])
    stream.notification(note(2, T + 60))
    expect(calls).toHaveLength(1)
    expect(delivered()).toEqual([])
    calls[0]!.resolve(rows([note(1, T + 6, 'a', 'backfill'), note(2, T + 50, 'b', 'backfill')]))
    await vi.runAllTimersAsync()
    expect(delivered()).toEqual(['1@6:backfill', '2@50:backfill', '2@60:live'])
    expect(backfills()).toEqual([
      { state: 'started', since: T + 5 },
      { state: 'finished', since: T + 5, recovered: 2, stale: 0 },
    ])
  })

  it('streams sharing one settings object each resume from their own `since`', async () => {
    const first = pendingFetch()
    const second = pendingFetch()
    const a = setup(first.fetch, { since: T + 5 })
    const b = setup(second.fetch, { since: T + 40 }, a.stream.settings)
    expect(b.stream.settings).toBe(a.stream.settings)
    a.stream.event(status('open'))
    b.stream.event(status('open'))
    expect(first.calls.map((c) => c.since)).toEqual([T + 5])
    expect(second.calls.map((c) => c.since)).toEqual([T + 40])
  })

  it('reads its position from a checkpoint store (sync or async) and writes it back, throttled, and at the end', async () => {
    const store = memoryCheckpoints()
    const key = `1:s:${account.toLowerCase()}`
    store.set(key, T + 7)
    const sync = pendingFetch()
    const a = setup(sync.fetch, { checkpoint: store })
    a.stream.event(status('open'))
    expect(sync.calls.map((c) => c.since)).toEqual([T + 7])
    sync.calls[0]!.resolve(rows([note(1, T + 8, 'a', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    a.stream.notification(note(1, T + 9))
    expect(store.entries().get(key)).toBe(T + 7)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(store.entries().get(key)).toBe(T + 9)
    a.stream.notification(note(1, T + 12))
    a.stream.dispose()
    expect(store.entries().get(key)).toBe(T + 12)
    expect(a.timers.pending).toBe(0)

    let resolveGet!: (value: number | undefined) => void
    const asyncStore: CheckpointStore = { get: () => new Promise((resolve) => (resolveGet = resolve)), set: () => {} }
    const later = pendingFetch()
    const b = setup(later.fetch, { checkpoint: asyncStore })
    b.stream.event(status('open'))
    b.stream.notification(note(3, T + 30)) // held until the position is known
    expect(b.delivered()).toEqual([])
    resolveGet(T + 20)
    await vi.advanceTimersByTimeAsync(0)
    expect(later.calls.map((c) => c.since)).toEqual([T + 20])
    later.calls[0]!.resolve(rows([note(3, T + 25, 'x', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(b.delivered()).toEqual(['3@25:backfill', '3@30:live'])
  })

  it('the reload loss: a stream that delivered nothing while every backfill ran into a drop still writes its gap, and the reload recovers what it held', async () => {
    // The sequence behind chaos seed 505: open, drop, a held frame, a drop under the backfill, another held frame, release.
    const store = memoryCheckpoints()
    const key = `1:s:${account.toLowerCase()}`
    const first = pendingFetch()
    const a = setup(first.fetch, { checkpoint: store })
    a.stream.event(status('open'))
    a.stream.event(status('reconnecting', 1))
    a.stream.event(status('open', 1))
    a.stream.notification(note(7, T + 5, 'a'))
    a.stream.event(status('reconnecting', 2))
    a.stream.event(status('open', 2))
    a.stream.notification(note(7, T + 6, 'b'))
    expect(a.delivered()).toEqual([])
    // the gap is written while it is open, not only at the end (a tab that is killed writes nothing more)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(store.entries().get(key)).toBe(T - 2)
    a.stream.dispose()
    expect(store.entries().get(key)).toBe(T - 2)

    const second = pendingFetch()
    const b = setup(second.fetch, { checkpoint: store })
    b.stream.event(status('open'))
    expect(second.calls.map((c) => c.since)).toEqual([T - 2])
    second.calls[0]!.resolve(rows([note(7, T + 5, 'a', 'backfill'), note(7, T + 6, 'b', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(b.delivered()).toEqual(['7@5:backfill', '7@6:backfill'])
  })

  it('a position is never past a held frame: a server clock behind this one moves the gap start back', async () => {
    const store = memoryCheckpoints()
    const key = `1:s:${account.toLowerCase()}`
    const { calls, fetch } = pendingFetch()
    const a = setup(fetch, { checkpoint: store })
    a.stream.event(status('open'))
    a.stream.event(status('reconnecting', 1))
    a.stream.event(status('open', 1))
    a.stream.notification(note(4, T - 100, 'behind')) // held behind the running backfill
    a.stream.event(status('reconnecting', 2))
    a.stream.dispose()
    expect(calls).toHaveLength(1)
    expect(store.entries().get(key)).toBe(T - 100)
    // a stream with no gap, nothing held and nothing delivered leaves the store alone
    const untouched = memoryCheckpoints()
    const c = setup(pendingFetch().fetch, { checkpoint: untouched })
    c.stream.event(status('open'))
    c.stream.dispose()
    expect(untouched.entries().size).toBe(0)
  })

  it('an empty store, or one that fails, starts from now; a failing store is a CHECKPOINT error', async () => {
    const calls: number[] = []
    const record = async (r: BackfillRequest) => {
      calls.push(r.since)
      return rows([])
    }
    const a = setup(record, { checkpoint: { get: () => Promise.resolve(undefined), set: () => {} } })
    a.stream.notification(note(1, T + 1))
    await vi.advanceTimersByTimeAsync(0)
    expect(a.delivered()).toEqual(['1@1:live'])
    const b = setup(record, {
      checkpoint: {
        get: () => {
          throw new Error('storage disabled')
        },
        set: () => Promise.reject(new Error('quota')),
      },
    })
    b.stream.event(status('open'))
    b.stream.notification(note(2, T + 2))
    b.stream.dispose()
    await vi.advanceTimersByTimeAsync(0)
    expect(calls).toEqual([])
    expect(b.errors().map((e) => [e.code, e.message.split(':')[0]])).toEqual([
      ['CHECKPOINT', 'Could not read the resume checkpoint "1'],
      ['CHECKPOINT', 'Could not write the resume checkpoint "1'],
    ])
  })
})

describe('ResumeStream and bad timestamps', () => {
  it('a modify_time in milliseconds is delivered and reported, but moves neither the watermark nor the quote order', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, errors } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 10))
    stream.notification(note(1, (T + 11) * 1000, 'ms'))
    stream.notification(note(1, T + 12))
    expect(delivered()).toEqual(['1@10:live', `1@${(T + 11) * 1000 - T}:live`, '1@12:live'])
    expect(errors()).toEqual([expect.objectContaining({ code: 'IMPLAUSIBLE_TIMESTAMP', message: expect.stringContaining('milliseconds') })])
    stream.event(status('reconnecting', 1))
    stream.event(status('open', 1))
    expect(calls.map((c) => c.since)).toEqual([T + 12])
  })
})

describe('ResumeStream sweeps', () => {
  it('with sweepIntervalMs, re-runs the backfill while connected and recovers what a healthy socket lost', async () => {
    const since: number[] = []
    const { stream, delivered, stats, timers } = setup(
      async (r) => {
        since.push(r.since)
        return rows(since.length === 1 ? [note(7, T + 15, 'lost', 'backfill')] : [])
      },
      { sweepIntervalMs: 5_000 },
    )
    stream.event(status('open'))
    stream.notification(note(6, T + 20))
    await vi.advanceTimersByTimeAsync(5_000)
    expect(since).toEqual([T - 2])
    expect(delivered()).toEqual(['6@20:live', '7@15:backfill'])
    await vi.advanceTimersByTimeAsync(5_000)
    expect(since).toEqual([T - 2, T + 20]) // each sweep covers what came after the previous one started
    expect(stats.backfills.runs).toBe(2)
    stream.dispose()
    expect(timers.pending).toBe(0)
  })
})

describe('ResumeStream: counter-examples the model test found on the old code', () => {
  it('[drop, a transition stored while down, reload] (joined an open socket): the reload recovers it', async () => {
    const store = memoryCheckpoints()
    const a = setup(pendingFetch().fetch, { checkpoint: store })
    a.stream.event(status('open'))
    a.stream.event(status('reconnecting', 1))
    a.stream.dispose()
    const b = pendingFetch()
    const second = setup(b.fetch, { checkpoint: store })
    second.stream.event(status('open'))
    expect(b.calls.map((c) => c.since)).toEqual([T - 2])
    b.calls[0]!.resolve(rows([note(1, T + 1, 'stored-while-down', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(second.delivered()).toEqual(['1@1:backfill'])
  })

  it('[a transition stored while the first dial is still in progress, time passes, reload]: the gap from subscribing is written, the reload recovers it', async () => {
    const store = memoryCheckpoints()
    const a = setup(pendingFetch().fetch, { checkpoint: store })
    a.stream.event({ type: 'status', status: 'connecting', attempt: 0 })
    await vi.advanceTimersByTimeAsync(4_000)
    a.stream.dispose()
    expect(store.entries().get(`1:s:${account.toLowerCase()}`)).toBe(T - 2)
    const b = pendingFetch()
    const second = setup(b.fetch, { checkpoint: store })
    second.stream.event(status('open'))
    expect(b.calls.map((c) => c.since)).toEqual([T - 2])
  })

  it('[a transition stored while the first dial is in progress, open]: the first open backfills from subscribing', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered } = setup(fetch)
    stream.event({ type: 'status', status: 'connecting', attempt: 0 })
    stream.event(status('open'))
    expect(calls.map((c) => c.since)).toEqual([T - 2])
    calls[0]!.resolve(rows([note(1, T + 1, 'stored-while-dialing', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['1@1:backfill'])
  })
})

describe('ResumeStream phases', () => {
  it('a first dial that fails is a gap from the moment of subscribing: once open, history since then is backfilled', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered, stats } = setup(fetch)
    stream.event(status('reconnecting', 1))
    expect(stream.inspect(account).phase).toBe('holding')
    stream.event(status('open'))
    expect(stream.inspect(account).phase).toBe('backfilling')
    expect(calls.map((c) => c.since)).toEqual([T - 2])
    stream.notification(note(1, T + 5))
    calls[0]!.resolve(rows([note(3, T + 1, 'stored-meanwhile', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(delivered()).toEqual(['3@1:backfill', '1@5:live'])
    expect(stats.backfills).toMatchObject({ runs: 1, recovered: 1 })
  })

  it('walks live → holding → backfilling → live, and disposed is terminal', async () => {
    const { calls, fetch } = pendingFetch()
    const { stream, delivered } = setup(fetch)
    stream.event(status('open'))
    stream.notification(note(1, T + 5))
    expect(stream.inspect(account).phase).toBe('live')
    stream.event(status('reconnecting', 1))
    expect(stream.inspect(account).phase).toBe('holding')
    stream.event(status('open'))
    expect(stream.inspect(account).phase).toBe('backfilling')
    calls[0]!.resolve(rows([note(2, T + 6, 'h', 'backfill')]))
    await vi.advanceTimersByTimeAsync(0)
    expect(stream.inspect(account).phase).toBe('live')
    expect(delivered()).toEqual(['1@5:live', '2@6:backfill'])
    stream.dispose()
    expect(stream.inspect(account).phase).toBe('disposed')
    stream.event(status('open'))
    stream.notification(note(3, T + 7))
    expect(stream.inspect(account).phase).toBe('disposed')
    expect(delivered()).toEqual(['1@5:live', '2@6:backfill'])
  })
})
