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
 * or failing any request in flight (with or without a Retry-After, up to 30 s), and time passing. Each
 * request in flight has the search deadline (it fails with TIMEOUT at `TIMEOUT_MS`, as postJson's does).
 * The promises: a live frame is never held longer than two deadlines (one in the gate, one in flight),
 * whatever Retry-After another stream got; and once the dust settles, every frame was delivered.
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

async function run(actions: Action[], concurrency: number): Promise<string | undefined> {
  const timers = new Timers()
  const stats = { ...createClientStats(), timers: 0 } as ClientStats
  const gate = new HistoryGate(concurrency, timers, { rate: 0 }, { cap: capDelay, late: (waitedMs, retryAfterMs) => Object.assign(new Error(`gate: waited ${waitedMs} ms`), { code: 'TIMEOUT', retryAfterMs }) })
  let calls: Call[] = []
  const sent = new Map<string, number>()
  const delivered = new Set<string>()
  let worst = { ms: 0, id: '' }
  let open = true
  const streams = accounts.map((account) => {
    const s = new ResumeStream(
      {
        notification: (n) => {
          delivered.add(n.id!)
          const at = sent.get(n.id!)
          if (at !== undefined && Date.now() - at > worst.ms) worst = { ms: Date.now() - at, id: n.id! }
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
            false,
            TIMEOUT_MS,
          ),
        timers,
        backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
        random: () => 1,
        stats,
        keyOf: (of) => `1:s:${of.toLowerCase()}`,
      },
      account,
      { checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: undefined, dedupeWindow: 2_048, checkpointTimeoutMs: 10_000, poll: undefined },
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
          for (const s of streams) s.event({ type: 'status', status: 'reconnecting', attempt: 1 })
        }
        break
      case 'open':
        if (!open) {
          open = true
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
    for (const [id, at] of sent) if (!delivered.has(id) && now - at > 2 * TIMEOUT_MS + 10) return `${id} held ${now - at} ms (more than two deadlines)`
  }
  // The dust settles: the socket opens, history answers whatever is asked, Retry-Afters run out.
  if (!open) for (const s of streams) s.event({ type: 'status', status: 'open', attempt: 1 })
  for (let round = 0; round < 40; round++) {
    await vi.advanceTimersByTimeAsync(1_000)
    for (const call of calls.splice(0)) call.resolve({ notifications: [], truncated: undefined, foreign: 0, overlong: 0 })
  }
  if (worst.ms > 2 * TIMEOUT_MS + 10) return `${worst.id} held ${worst.ms} ms`
  const missing = [...sent.keys()].filter((id) => !delivered.has(id))
  if (missing.length) return `never delivered: ${missing.join(', ')}`
  for (const s of streams) s.dispose()
  return undefined
}

beforeEach(() => vi.useFakeTimers({ now: T * 1000 }))
afterEach(() => vi.useRealTimers())

it('streams sharing one history gate: no live frame is held longer than two deadlines whatever Retry-After another stream got, and every frame is delivered', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 2 }), async (actions, concurrency) => {
      vi.setSystemTime(T * 1000)
      expect(await run(actions, concurrency)).toBeUndefined()
    }),
    { numRuns: Number(process.env.GATE_MODEL_RUNS ?? 300), seed: process.env.GATE_MODEL_SEED ? Number(process.env.GATE_MODEL_SEED) : undefined },
  )
}, 120_000)
