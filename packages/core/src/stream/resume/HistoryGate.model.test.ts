import fc from 'fast-check'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import type { Notification } from '../../protocol/types.js'
import type { BackfillRequest, BackfillResult } from '../../search/backfill.js'
import { Timers } from '../../transport/Timers.js'
import { type ClientStats, createClientStats } from '../ClientStats.js'
import { capDelay } from '../../utils/capDelay.js'
import { HistoryGate } from './HistoryGate.js'
import { ResumeStream } from './ResumeStream.js'

/**
 * Several resume streams share one history gate (one endpoint), over random interleavings (fast-check)
 * of every source: live frames to any stream, the shared socket dropping and opening, history answering
 * or failing any request in flight (with or without a Retry-After, up to 30 s), history polled while the
 * socket is down (generated: off or on; a poll may wait for the gate a poll interval longer, as the
 * client asks it), and time passing. Each request in flight has the search deadline (it fails with
 * TIMEOUT at `TIMEOUT_MS`, as postJson's does).
 * The promises: a live frame is held at most two backfills (each one deadline in the gate, one in
 * flight) after it came or after the socket last dropped or opened, whichever is later, whatever
 * Retry-After another stream got: the backfill that ran across the reopen, then the one of the gap it
 * left (while the socket flaps, frames wait for the backfill of each new gap: that keeps them in order);
 * and once the dust settles, every frame was delivered. Run with GATE_MODEL_RUNS=30000 (seconds)
 * when working on the gate or the reducer: on the reducer before the fix of polls at a reopen (a poll
 * still running then held the new socket's frames for its wait, a poll interval longer than a
 * backfill's), seed 1 fails after 6,529 cases: polls while the socket is down, one answered with a
 * Retry-After, the socket back, a frame held past two backfills.
 */

const T = 1_763_700_000
const TIMEOUT_MS = 1_000
const accounts = ['0xAbC0000000000000000000000000000000000001', '0xAbC0000000000000000000000000000000000002', '0xAbC0000000000000000000000000000000000003'] as const

type Action =
  | { kind: 'frame'; stream: number }
  | { kind: 'drop' }
  | { kind: 'open' }
  | { kind: 'answer'; which: number }
  | { kind: 'fail'; which: number; retryAfterMs: number | undefined }
  | { kind: 'wait'; ms: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('frame' as const), stream: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'open' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('answer' as const), which: fc.nat(5) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fail' as const), which: fc.nat(5), retryAfterMs: fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 3_000 }) }) },
)

interface Call {
  request: BackfillRequest
  resolve: (r: BackfillResult) => void
  reject: (e: unknown) => void
}

/** History polling while the socket is down: off, or on (a poll interval of half a deadline, or of eight). */
const pollings = fc.constantFrom(undefined, { afterMs: 200, intervalMs: 500, whenClosed: false }, { afterMs: 200, intervalMs: 8_000, whenClosed: false })
/** The longest a live frame may be held after it came or the socket last changed (see the file's comment). */
const HOLD_BOUND_MS = 4 * TIMEOUT_MS + 10
type Poll = { afterMs: number; intervalMs: number; whenClosed: boolean } | undefined

async function run(actions: Action[], concurrency: number, poll: Poll): Promise<string | undefined> {
  const timers = new Timers()
  const stats = { ...createClientStats(), timers: 0 } as ClientStats
  const gate = new HistoryGate(concurrency, timers, { rate: 0 }, { cap: capDelay, late: (waitedMs, retryAfterMs) => Object.assign(new Error(`gate: waited ${waitedMs} ms`), { code: 'TIMEOUT', retryAfterMs }) })
  let calls: Call[] = []
  const sent = new Map<string, number>()
  const delivered = new Set<string>()
  let worst = { ms: 0, id: '' }
  let open = true
  /** when the socket last dropped or opened */
  let flipped = Date.now()
  const streams = accounts.map((account) => {
    const s = new ResumeStream(
      {
        notification: (n) => {
          delivered.add(n.id!)
          const at = sent.get(n.id!)
          if (at !== undefined && Date.now() - Math.max(at, flipped) > worst.ms) worst = { ms: Date.now() - Math.max(at, flipped), id: n.id! }
        },
        event: () => {},
        complete: () => {},
      },
      {
        // Through the one gate; in flight, the search deadline holds (postJson's timeout).
        fetch: (request) =>
          gate.run(
            () =>
              new Promise<BackfillResult>((resolve, reject) => {
                const call: Call = { request, resolve, reject }
                calls.push(call)
                const deadline = setTimeout(() => reject(Object.assign(new Error('search timed out'), { code: 'TIMEOUT' })), TIMEOUT_MS)
                call.resolve = (r) => {
                  clearTimeout(deadline)
                  resolve(r)
                }
                call.reject = (e) => {
                  clearTimeout(deadline)
                  reject(e)
                }
              }),
            request.signal,
            request.poll !== undefined,
            TIMEOUT_MS + (request.poll ?? 0),
          ),
        timers,
        backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
        random: () => 1,
        stats,
        keyOf: (of) => `1:s:${of.toLowerCase()}`,
      },
      account,
      { checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: undefined, dedupeWindow: 2_048, checkpointTimeoutMs: 10_000, poll },
    )
    s.start(undefined)
    s.event({ type: 'status', status: 'open', attempt: 0 })
    return s
  })
  let seq = 0
  for (const a of actions) {
    switch (a.kind) {
      case 'frame': {
        if (!open) break
        const id = `f${seq++}`
        const n: Notification = normalizeNotification(
          { id, quote_id: seq, modify_time: Math.floor(Date.now() / 1000), action_status: 'success', last_seen_action: 'InstantRFQ', counterparty_address: accounts[a.stream] },
          { protocol: 'rasa', chainId: 1, solverId: 's', account: accounts[a.stream]!, source: 'live' },
        )
        sent.set(id, Date.now())
        streams[a.stream]!.notification(n)
        break
      }
      case 'drop':
        if (open) {
          open = false
          flipped = Date.now()
          for (const s of streams) s.event({ type: 'status', status: 'reconnecting', attempt: 1 })
        }
        break
      case 'open':
        if (!open) {
          open = true
          flipped = Date.now()
          for (const s of streams) s.event({ type: 'status', status: 'open', attempt: 1 })
        }
        break
      case 'answer':
      case 'fail': {
        calls = calls.filter((c) => !c.request.signal.aborted)
        const call = calls[a.which % Math.max(1, calls.length)]
        if (!call) break
        calls = calls.filter((c) => c !== call)
        if (a.kind === 'answer') call.resolve({ notifications: [], truncated: undefined, foreign: 0, overlong: 0 })
        else call.reject(Object.assign(new Error('history refused'), { retryAfterMs: a.retryAfterMs }))
        break
      }
      case 'wait':
        await vi.advanceTimersByTimeAsync(a.ms)
        break
    }
    await vi.advanceTimersByTimeAsync(0)
    const now = Date.now()
    for (const [id, at] of sent) if (!delivered.has(id) && now - Math.max(at, flipped) > HOLD_BOUND_MS) return `${id} held ${now - Math.max(at, flipped)} ms after it came or the socket last changed (more than two backfills' deadlines)`
  }
  // The dust settles: the socket opens, history answers whatever is asked, Retry-Afters run out.
  if (!open) {
    flipped = Date.now()
    for (const s of streams) s.event({ type: 'status', status: 'open', attempt: 1 })
  }
  for (let round = 0; round < 40; round++) {
    await vi.advanceTimersByTimeAsync(1_000)
    for (const call of calls.splice(0)) call.resolve({ notifications: [], truncated: undefined, foreign: 0, overlong: 0 })
  }
  if (worst.ms > HOLD_BOUND_MS) return `${worst.id} held ${worst.ms} ms`
  const missing = [...sent.keys()].filter((id) => !delivered.has(id))
  if (missing.length) return `never delivered: ${missing.join(', ')}`
  for (const s of streams) s.dispose()
  return undefined
}

beforeEach(() => vi.useFakeTimers({ now: T * 1000 }))
afterEach(() => vi.useRealTimers())

it('streams sharing one history gate: no live frame is held longer than two backfills after it came or the socket last changed whatever Retry-After another stream got, and every frame is delivered', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 2 }), pollings, async (actions, concurrency, poll) => {
      vi.setSystemTime(T * 1000)
      expect(await run(actions, concurrency, poll)).toBeUndefined()
    }),
    { numRuns: Number(process.env.GATE_MODEL_RUNS ?? 2_000), seed: process.env.GATE_MODEL_SEED ? Number(process.env.GATE_MODEL_SEED) : undefined },
  )
}, 120_000)
