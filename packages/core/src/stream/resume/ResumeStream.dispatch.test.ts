import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import type { Notification } from '../../protocol/types.js'
import type { BackfillRequest, BackfillResult } from '../../search/backfill.js'
import { Timers } from '../../transport/Timers.js'
import { type ClientStats, createClientStats } from '../ClientStats.js'
import { type CheckpointStore, memoryCheckpoints } from './CheckpointStore.js'
import { ResumeStream } from './ResumeStream.js'

// Every reduction is recorded: a delivery made while the events of earlier deliveries wait sees the
// event that caused it as the last one reduced; a re-entrant dispatch would have reduced them already.
const reductions = vi.hoisted(() => ({ events: [] as string[], timers: undefined as object | undefined }))
vi.mock('./resumeReducer.js', async (original) => {
  const actual = await original<typeof import('./resumeReducer.js')>()
  return {
    ...actual,
    reduceResume: (...args: Parameters<typeof actual.reduceResume>) => {
      reductions.events.push(args[1].type)
      const next = actual.reduceResume(...args)
      reductions.timers = next.state.timers
      return next
    },
  }
})

const account = '0xAbC0000000000000000000000000000000000001'
const T = 1_763_700_000
const note = (quote: number, time: number, source: 'live' | 'backfill' = 'live'): Notification =>
  normalizeNotification({ id: `id-${quote}-${time}`, quote_id: quote, modify_time: time, action_status: 'success', last_seen_action: 'InstantRFQ' }, { protocol: 'rasa', chainId: 1, solverId: 's', account, source })

/** A resume stream of `account` whose subscriber is `notification`, over `fetch` and an optional checkpoint store. */
function streamOf(notification: (n: Notification) => void, fetch: (request: BackfillRequest) => Promise<BackfillResult>, checkpoint: CheckpointStore | undefined): ResumeStream {
  return new ResumeStream(
    { notification, event: () => {}, complete: () => {} },
    {
      fetch,
      timers: new Timers(),
      backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
      random: () => 1,
      stats: { ...createClientStats(), timers: 0 } as ClientStats,
      keyOf: (of) => `1:s:${of.toLowerCase()}`,
    },
    account,
    { checkpoint, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: undefined, dedupeWindow: 64, checkpointTimeoutMs: 10_000, poll: undefined },
  )
}

beforeEach(() => {
  vi.useFakeTimers({ now: T * 1000 })
  reductions.events.length = 0
})
afterEach(() => vi.useRealTimers())

it('applies the events its effects raise after those effects (no reduction inside another), and writes the checkpoint after them', async () => {
  const store = memoryCheckpoints()
  const key = `1:s:${account.toLowerCase()}`
  store.set(key, T + 1) // read synchronously: the checkpoint event is raised inside the start's effects
  let answer!: (result: BackfillResult) => void
  const delivered: string[] = []
  const stream = streamOf(
    (n) => {
      // Every reduction the delivery of this notification raised is still waiting.
      delivered.push(`${n.modifyTime! - T}:${reductions.events.at(-1)}`)
    },
    (_request: BackfillRequest) => new Promise<BackfillResult>((resolve) => (answer = resolve)),
    store,
  )
  stream.start(undefined)
  stream.event({ type: 'status', status: 'open', attempt: 0 })
  stream.notification(note(1, T + 5)) // held: the backfill from the checkpoint runs
  stream.notification(note(2, T + 6))
  answer({ notifications: [note(3, T + 3, 'backfill'), note(4, T + 4, 'backfill')], truncated: undefined, foreign: 0, overlong: 0 })
  await vi.advanceTimersByTimeAsync(0)
  // Four deliveries in one merge, made before their watermark was reduced: once, for the newest of them.
  expect(delivered).toEqual(['3:backfilled', '4:backfilled', '5:backfilled', '6:backfilled'])
  expect(reductions.events.slice(-2)).toEqual(['backfilled', 'delivered'])
  // Held frames released by a close, then the checkpoint, written after their deliveries were reduced:
  // the gap the aborted backfill was for is still open, so it is the gap's start and not the released frame.
  stream.event({ type: 'status', status: 'reconnecting', attempt: 1 })
  stream.event({ type: 'status', status: 'open', attempt: 1 })
  stream.notification(note(5, T + 9)) // held behind the new backfill
  stream.event({ type: 'status', status: 'closed', attempt: 1 })
  expect(delivered.at(-1)).toBe('9:status')
  expect(store.entries().get(key)).toBe(T + 6)
})

it('one reduction per live frame at most: a frame that moves the watermark is reduced once (its watermark), a held or repeated one not at all', async () => {
  const got: string[] = []
  const stream = streamOf(
    (n) => got.push(n.id!),
    () => Promise.resolve({ notifications: [], truncated: undefined, foreign: 0, overlong: 0 }),
    undefined,
  )
  stream.start(undefined)
  stream.event({ type: 'status', status: 'open', attempt: 0 })
  await vi.advanceTimersByTimeAsync(0) // the first open's backfill, empty
  reductions.events.length = 0
  for (let i = 1; i <= 100; i++) stream.notification(note(i, T + i))
  stream.notification(note(100, T + 100)) // the same again: dropped, nothing to reduce
  expect(got).toHaveLength(100)
  expect(reductions.events).toEqual(Array.from({ length: 100 }, () => 'delivered'))
  stream.dispose()
})

it('its timers are the state’s: after every step, one pending timer per timer the state says is armed, none when it says none', async () => {
  const timers = new Timers()
  let fail = true
  const stream = new ResumeStream(
    { notification: () => {}, event: () => {}, complete: () => {} },
    {
      // Fails until told otherwise: each failure arms a retry; the retry that succeeds arms nothing.
      fetch: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve({ notifications: [], truncated: undefined, foreign: 0, overlong: 0 })),
      timers,
      backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
      random: () => 1,
      stats: { ...createClientStats(), timers: 0 } as ClientStats,
      keyOf: (of) => `1:s:${of.toLowerCase()}`,
    },
    account,
    { checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: 5_000, dedupeWindow: 64, checkpointTimeoutMs: 10_000, poll: { afterMs: 200, intervalMs: 1_000, whenClosed: false } },
  )
  // What the last reduction said is armed (one stream here: the last reduction is its).
  const armed = () => Object.values(reductions.timers ?? {}).filter(Boolean).length
  const steps: Array<[string, number, number]> = []
  const look = (step: string) => steps.push([step, armed(), timers.pending])
  stream.start(T - 60)
  look('start')
  stream.event({ type: 'status', status: 'open', attempt: 0 })
  look('open')
  await vi.advanceTimersByTimeAsync(0)
  look('first backfill failed')
  await vi.advanceTimersByTimeAsync(1_000)
  look('its retry failed')
  stream.event({ type: 'status', status: 'reconnecting', attempt: 1 })
  look('dropped')
  await vi.advanceTimersByTimeAsync(300)
  look('polled')
  fail = false
  stream.event({ type: 'status', status: 'open', attempt: 1 })
  await vi.advanceTimersByTimeAsync(2_000)
  look('open again, caught up')
  await vi.advanceTimersByTimeAsync(5_000)
  look('swept')
  stream.dispose()
  look('disposed')
  for (const [step, inState, pending] of steps) expect({ step, pending }).toEqual({ step, pending: inState })
  // The sequence went through armed timers (it is not all zeros), and ended with none.
  expect(steps.some(([, inState]) => inState > 0)).toBe(true)
  expect(steps.at(-1)).toEqual(['disposed', 0, 0])
})
