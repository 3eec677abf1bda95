import { createConfig } from '../src/config/createConfig.js'
import { normalizeNotification } from '../src/protocol/normalizeNotification.js'
import type { Notification } from '../src/protocol/types.js'
import { createBackfill } from '../src/search/backfill.js'
import { type ClientStats, createClientStats } from '../src/stream/ClientStats.js'
import { ResumeStream } from '../src/stream/resume/ResumeStream.js'
import { Timers } from '../src/transport/Timers.js'
import { fmt, median } from './measure.js'
import { startRemoteSimulator } from './remoteSimulator.js'

const account = '0xAbC0000000000000000000000000000000000001' as const
const heap = () => {
  ;(globalThis as { gc?: () => void }).gc?.()
  return process.memoryUsage().heapUsed
}

/** Heap growth while `frames` live frames arrive behind a backfill that never answers. */
function heldGrowth(frames: number, maxHeldFrames: number): number {
  const stats = { ...createClientStats(), timers: 0 } as ClientStats
  let delivered = 0
  const stream = new ResumeStream(
    { notification: () => void delivered++, event: () => {}, complete: () => {} },
    {
      fetch: () => new Promise(() => {}), // a stalled history service
      timers: new Timers(),
      backoff: { baseDelayMs: 500, maxDelayMs: 10_000 },
      random: Math.random,
      stats,
      keyOf: () => 'bench',
    },
    account,
    { checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames, sweepIntervalMs: undefined, dedupeWindow: 2_048, checkpointTimeoutMs: 10_000, poll: undefined },
  )
  stream.event({ type: 'status', status: 'open', attempt: 0 })
  stream.event({ type: 'status', status: 'reconnecting', attempt: 1 })
  stream.event({ type: 'status', status: 'open', attempt: 1 })
  const t0 = Math.floor(Date.now() / 1000)
  const before = heap()
  for (let i = 0; i < frames; i++) {
    const n: Notification = normalizeNotification(
      { id: `f${i}`, quote_id: i + 1, modify_time: t0 + (i % 1000), action_status: 'success', last_seen_action: 'InstantRFQ', counterparty_address: account },
      { protocol: 'rasa', chainId: 1, solverId: 's', account },
    )
    stream.notification(n)
  }
  const grown = heap() - before
  stream.dispose()
  return grown
}

/**
 * Issue 12: live frames held behind a stalled backfill stay bounded (maxHeldFrames), against the same
 * stream with no cap; and backfill throughput (rows/s of history turned into deliverable notifications,
 * 10,000 rows, simulator in another process) against raw fetch + JSON.parse of the same pages.
 */
export async function runResume(): Promise<boolean> {
  const frames = 200_000
  const bounded = heldGrowth(frames, 10_000)
  const unbounded = heldGrowth(frames, Number.MAX_SAFE_INTEGER)
  const heldPass = bounded < 16 * 1024 * 1024 && bounded * 4 < unbounded
  console.log(
    `RESUME held frames behind a stalled backfill: ${fmt(frames)} live frames in, heap +${(bounded / 1048576).toFixed(1)} MiB with maxHeldFrames 10,000 vs +${(unbounded / 1048576).toFixed(1)} MiB uncapped (bounded) ${heldPass ? 'PASS' : 'MISS'}`,
  )

  const sim = await startRemoteSimulator('rasa')
  const rows = 10_000
  const since = Math.floor(Date.now() / 1000)
  const frame = { quote_id: 1, counterparty_address: account, modify_time: since + 1, action_status: 'success', last_seen_action: 'InstantRFQ' }
  await sim.publish([frame], { repeat: rows, spread: { accounts: [account] } })
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { url: sim.httpUrl, notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
  const solver = config.getSolver()
  const backfill = createBackfill({})(solver, account)
  const ours = async () => {
    const start = performance.now()
    const result = await backfill({ since, maxRows: 20_000, known: () => false, signal: new AbortController().signal })
    if (result.notifications.length !== rows) throw new Error(`backfill found ${result.notifications.length} of ${rows}`)
    return rows / ((performance.now() - start) / 1000)
  }
  const raw = async () => {
    const start = performance.now()
    let read = 0
    for (let from = 0; read < rows; from += 100) {
      const res = await fetch(`${sim.httpUrl}/position-state/${from}/100`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: account, quote_id: null, create_time_gte: null, modify_time_gte: since }),
      })
      read += (JSON.parse(await res.text()) as { position_state: unknown[] }).position_state.length
    }
    return rows / ((performance.now() - start) / 1000)
  }
  await ours()
  await raw()
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < 5; i++) {
    a.push(await ours())
    b.push(await raw())
  }
  const ratio = median(a) / median(b)
  const ratePass = ratio >= 0.8
  console.log(
    `RESUME backfill of ${fmt(rows)} rows (rasa, 100-row pages, simulator in another process): ${fmt(median(a))} rows/s vs raw fetch + JSON.parse ${fmt(median(b))} rows/s → ${ratio.toFixed(2)}× (target ≥ 0.80×) ${ratePass ? 'PASS' : 'MISS'}`,
  )
  await sim.close()
  return heldPass && ratePass
}

if (import.meta.url === `file://${process.argv[1]}`) await runResume()
