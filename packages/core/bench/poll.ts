import { startSolverSimulator } from '@solver-notifications/testkit'
import type { Subscription } from 'rxjs'
import { createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { createConfig } from '../src/config/createConfig.js'
import { DEFAULT_HISTORY_CONCURRENCY } from '../src/stream/resume/historyConcurrency.js'
import { fmt } from './measure.js'

/**
 * POLL: 500 resume streams on one rasa hub whose sockets are refused, polling history with the
 * defaults (after 5 s, every 5 s) for POLL_SECONDS (60). Every history request the client sends is
 * timed where it leaves (a wrapped `fetch`): the largest number started in any 500 ms window must stay
 * ≤ 10% of the streams, and the requests in flight ≤ the search concurrency. Counts, not speed: a
 * slow machine only spreads them further.
 */
export async function runPoll(): Promise<boolean> {
  const streams = 500
  const seconds = Number(process.env.POLL_SECONDS ?? 60)
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  sim.refuseSockets()
  const starts: number[] = []
  let inFlight = 0
  let maxInFlight = 0
  const counted: typeof fetch = async (input, init) => {
    starts.push(performance.now())
    maxInFlight = Math.max(maxInFlight, ++inFlight)
    try {
      return await fetch(input, init)
    } finally {
      inFlight--
    }
  }
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
  const client = createNotificationsClient({ config, search: { fetch: counted } })
  const subs: Subscription[] = []
  const began = performance.now()
  for (let i = 0; i < streams; i++) {
    const account = `0x${(i + 1).toString(16).padStart(40, '0')}` as const
    subs.push(client.notifications({ account }, { resume: true }).subscribe())
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000)) // the bench's duration, not synchronisation
  for (const s of subs) s.unsubscribe()
  client.close()
  await sim.close()
  // The largest number of request starts in any 500 ms window (sliding, over every start).
  let worst = 0
  for (let lo = 0, hi = 0; hi < starts.length; hi++) {
    while (starts[hi]! - starts[lo]! >= 500) lo++
    worst = Math.max(worst, hi - lo + 1)
  }
  const limit = streams / 10
  const pass = starts.length > 0 && worst <= limit && maxInFlight <= DEFAULT_HISTORY_CONCURRENCY
  console.log(
    `POLL ${streams} resume streams on one refused rasa hub, ${seconds} s (poll after 5 s, every 5 s): ${fmt(starts.length)} history requests (${(starts.length / ((performance.now() - began) / 1000)).toFixed(1)}/s); ` +
      `most started in any 500 ms window ${worst} (target ≤ ${limit}, 10% of the streams), most in flight ${maxInFlight} (target ≤ search concurrency ${DEFAULT_HISTORY_CONCURRENCY}) ${pass ? 'PASS' : 'MISS'}`,
  )
  return pass
}
