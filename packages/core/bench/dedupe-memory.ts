import { normalizeNotification } from '../src/protocol/normalizeNotification.js'
import type { Notification } from '../src/protocol/types.js'
import { createClientStats } from '../src/stream/ClientStats.js'
import { ResumeStream } from '../src/stream/resume/ResumeStream.js'
import { Timers } from '../src/transport/Timers.js'

/**
 * DEDUPE: heap per resume stream after GC, 2,000 busy streams (3 transitions a second each, one second
 * of stream time per round) and 2,000 idle ones, measured after 500 first ones. Streams are driven directly, without sockets, so the
 * figure is the stream's own memory (holdback, de-duplication, watermark), not a simulator's. Busy
 * streams must reach a plateau: the heap after 60 and after 120 stream-seconds stays within 10%.
 */
export async function runDedupe(): Promise<boolean> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) {
    console.log('DEDUPE: run with node --expose-gc')
    return true
  }
  const STREAMS = 2_000
  // Frames stamped from now on, as a live solver stamps them (the watermark moves with them).
  const t0 = Math.floor(Date.now() / 1000)
  const account = '0xAbC0000000000000000000000000000000000001'
  // One client's shared parts, as in a real client: its timers and counters.
  const stats = { ...createClientStats(), timers: 0 } as never
  const timers = new Timers()
  // One context per client and solver, shared by its streams, as the client makes it.
  const ctx = {
    fetch: () => new Promise<never>(() => {}),
    timers,
    backoff: { baseDelayMs: 500, maxDelayMs: 10_000 },
    random: Math.random,
    stats,
    keyOf: (of: string) => `1:s:${of}`,
  }
  const make = () => {
    // Settings are resolved per stream (each stream's own resume options), as the client does.
    // Verification off: this bench drives frames, not time, so a verification would never run and its
    // window (what was delivered since the last one, up to a minute of notifications) never move.
    const stream = new ResumeStream({ notification: () => {}, event: () => {}, complete: () => {} }, ctx, account as never, {
      checkpoint: undefined,
      maxBackfillRows: 10_000,
      maxHeldFrames: 10_000,
      sweepIntervalMs: undefined,
      dedupeWindow: 2_048,
      checkpointTimeoutMs: 10_000,
      poll: undefined,
    })
    stream.start(undefined)
    stream.event({ type: 'status', status: 'open', attempt: 0 })
    return stream
  }
  const heap = () => {
    gc()
    gc()
    return process.memoryUsage().heapUsed
  }
  // A slope: the first streams bring what is made once (compiled code, the timers' tables), counted in
  // it moved the idle figure ~0.15 KiB from run to run with when the JIT kicked in; the idle figure is
  // what each further stream adds.
  const first = Array.from({ length: STREAMS / 4 }, make)
  const base = heap()
  const idle = Array.from({ length: STREAMS }, make)
  const idleBytes = (heap() - base) / STREAMS
  const busy = Array.from({ length: STREAMS }, make)
  const beforeBusy = heap()
  let seq = 0
  const frame = (quote: number, t: number): Notification =>
    normalizeNotification(
      { id: `n${seq++}`, quote_id: quote, modify_time: t, last_seen_action: 'FillLimitOrderOpen', action_status: 'success', state_type: 'report', filled_amount_open: `${seq % 97}.5`, counterparty_address: account },
      { protocol: 'rasa', chainId: 1, solverId: 's', account, source: 'live' },
    )
  const samples: number[] = []
  for (let second = 0; second < 120; second++) {
    for (const [i, stream] of busy.entries()) for (let k = 0; k < 3; k++) stream.notification(frame(i * 1_000 + (second % 50), t0 + second))
    if (second === 59 || second === 119) samples.push((heap() - beforeBusy) / STREAMS)
  }
  const [at60, at120] = samples as [number, number]
  const plateau = at120 <= at60 * 1.1
  const busyOk = at120 <= 64 * 1024
  const idleOk = idleBytes <= 2 * 1024
  const kib = (b: number) => `${(b / 1024).toFixed(2)} KiB`
  console.log(
    `DEDUPE heap per resume stream after GC: idle ${kib(idleBytes)} (≤ 2 KiB ${idleOk ? 'PASS' : 'MISS'}); busy (3/s) ${kib(at60)} after 60 s, ${kib(at120)} after 120 s (≤ 64 KiB ${busyOk ? 'PASS' : 'MISS'}; plateau ${plateau ? 'PASS' : 'MISS'})`,
  )
  for (const s of [...first, ...idle, ...busy]) s.dispose()
  return idleOk && busyOk && plateau
}
