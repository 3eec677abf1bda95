import { normalizeNotification } from '../src/protocol/normalizeNotification.js'
import type { Notification } from '../src/protocol/types.js'
import type { BackfillResult } from '../src/search/backfill.js'
import { type ClientStats, createClientStats } from '../src/stream/ClientStats.js'
import { type ResumeContext, ResumeStream } from '../src/stream/resume/ResumeStream.js'
import { resolveResumeSettings } from '../src/stream/resume/resumeOptions.js'
import type { Timers } from '../src/transport/Timers.js'
import { median } from './measure.js'

/** Time as a dependency: the streams' timers on a simulated clock, so two hours of cadence run in a moment. */
class SimulatedClock {
  at = 0
  #next = 1
  readonly #due = new Map<number, { at: number; fn: () => void }>()
  readonly now = () => this.at
  set(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
    const id = this.#next++
    this.#due.set(id, { at: this.at + ms, fn })
    return id as unknown as ReturnType<typeof setTimeout>
  }
  clear(handle: ReturnType<typeof setTimeout> | undefined): undefined {
    if (handle !== undefined) this.#due.delete(handle as unknown as number)
    return undefined
  }
  get pending(): number {
    return this.#due.size
  }
  /** Runs every timer due until `until` (ms), in time order, letting answered requests settle between. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | undefined
      for (const entry of this.#due) if (!first || entry[1].at < first[1].at) first = entry
      if (!first || first[1].at > until) break
      this.#due.delete(first[0])
      this.at = first[1].at
      first[1].fn()
      await new Promise((resolve) => setImmediate(resolve))
    }
    this.at = until
  }
}

const EMPTY: BackfillResult = { notifications: [], truncated: undefined, foreign: 0, overlong: 0, rows: 0, pages: 1 } as BackfillResult

/** Verification requests per second on one solver with `streams` resume streams open, over `seconds` of simulated time. */
async function requestRate(streams: number, seconds: number): Promise<{ perSecond: number; worstMinute: number }> {
  const clock = new SimulatedClock()
  const starts: number[] = []
  const ctx: ResumeContext = {
    fetch: () => {
      starts.push(clock.at)
      return Promise.resolve(EMPTY)
    },
    keyOf: (a) => `1:s:${a}`,
    timers: clock as unknown as Timers,
    backoff: { baseDelayMs: 500, maxDelayMs: 10_000 },
    random: Math.random,
    stats: { ...createClientStats(), timers: 0 } as ClientStats,
    verifiers: { streams: 0, taken: new Set() },
  }
  const settings = resolveResumeSettings({ poll: false }, 10_000)
  const all: ResumeStream[] = []
  for (let i = 0; i < streams; i++) {
    const s = new ResumeStream({ notification: () => {}, event: () => {}, complete: () => {} }, ctx, `0x${(i + 1).toString(16).padStart(40, '0')}`, settings)
    s.start(undefined)
    s.event({ type: 'status', status: 'open', attempt: 0 })
    all.push(s)
  }
  await clock.runUntil(seconds * 1000)
  for (const s of all) s.dispose()
  // After the first cadence (streams that opened together start spread), the busiest minute.
  const settled = starts.filter((t) => t >= 120_000)
  let worst = 0
  for (let lo = 0, hi = 0; hi < settled.length; hi++) {
    while (settled[hi]! - settled[lo]! >= 60_000) lo++
    worst = Math.max(worst, hi - lo + 1)
  }
  return { perSecond: starts.length / seconds, worstMinute: worst / 60 }
}

/** CPU per live frame through an open resume stream, verification on or off (the same frames, the same run). */
function framePath(verify: boolean, frames: Notification[]): number {
  const clock = new SimulatedClock()
  const ctx: ResumeContext = {
    fetch: () => new Promise(() => {}),
    keyOf: () => 'bench',
    timers: clock as unknown as Timers,
    backoff: { baseDelayMs: 500, maxDelayMs: 10_000 },
    random: Math.random,
    stats: { ...createClientStats(), timers: 0 } as ClientStats,
    verifiers: { streams: 0, taken: new Set() },
  }
  let delivered = 0
  const stream = new ResumeStream({ notification: () => void delivered++, event: () => {}, complete: () => {} }, ctx, '0xAbC0000000000000000000000000000000000001', resolveResumeSettings({ poll: false, verify }, 10_000))
  stream.start(undefined)
  stream.event({ type: 'status', status: 'open', attempt: 0 })
  const t0 = process.hrtime.bigint()
  for (const n of frames) stream.notification(n)
  const ns = Number(process.hrtime.bigint() - t0)
  stream.dispose()
  if (delivered !== frames.length) throw new Error(`delivered ${delivered} of ${frames.length}`)
  return ns / frames.length
}

/**
 * VERIFY (docs/guide/continuity.md): verification requests per second on one solver at the default
 * cadence with 1, 100 and 2,000 resume streams (simulated time: two hours each; target ≤ 1/s at 100 and
 * 2,000, the busiest minute included), and the CPU per live frame with verification on against off,
 * measured in the same run (median of 7 alternating rounds of 100,000 frames; target ≤ 1.05×).
 */
export async function runVerify(): Promise<boolean> {
  let pass = true
  const rates: string[] = []
  for (const streams of [1, 100, 2_000]) {
    const { perSecond, worstMinute } = await requestRate(streams, 7_200)
    const ok = streams === 1 || (perSecond <= 1 && worstMinute <= 1.2)
    pass &&= ok
    rates.push(`${streams} streams: ${perSecond.toFixed(3)}/s (busiest minute ${worstMinute.toFixed(2)}/s)${streams === 1 ? '' : ok ? ' PASS' : ' MISS'}`)
  }
  const t = Math.floor(Date.now() / 1000)
  const frames = Array.from({ length: 100_000 }, (_, i) =>
    normalizeNotification(
      { id: `f${i}`, quote_id: 1 + i, modify_time: t + Math.floor(i / 1000), action_status: 'success', last_seen_action: 'InstantRFQ', counterparty_address: '0xAbC0000000000000000000000000000000000001' },
      { protocol: 'rasa', chainId: 1, solverId: 's', account: '0xAbC0000000000000000000000000000000000001' },
    ),
  )
  framePath(true, frames)
  framePath(false, frames)
  const on: number[] = []
  const off: number[] = []
  for (let round = 0; round < 7; round++) {
    on.push(framePath(true, frames))
    off.push(framePath(false, frames))
  }
  const ratio = median(on) / median(off)
  const cpuOk = ratio <= 1.05
  pass &&= cpuOk
  console.log(`VERIFY requests per second on one solver at the default cadence, 2 h simulated: ${rates.join('; ')}. CPU per live frame, verification on ${median(on).toFixed(0)} ns vs off ${median(off).toFixed(0)} ns: ${ratio.toFixed(3)}× (target ≤ 1.05×) ${cpuOk ? 'PASS' : 'MISS'}`)
  return pass
}
