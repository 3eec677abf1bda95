import type { ResolvedSolver } from '../../config/types.js'
import type { createBackfill } from '../../search/backfill.js'
import type { SearchHttpOptions } from '../../search/postJson.js'
import { searchUnavailable } from '../../search/searchUnavailable.js'
import type { ResumeFeature } from '../createStreamClient.js'
import { StreamObservable } from '../IterableObservable.js'
import { checkpointKey } from './CheckpointStore.js'
import type { HistoryGate } from './HistoryGate.js'
import { resolveHistoryConcurrency } from './historyConcurrency.js'
import { PollRate } from './PollRate.js'
import { type ResumeContext, ResumeStream } from './ResumeStream.js'
import { resolveResumeSettings } from './resumeOptions.js'

/**
 * Resume streams for the full client (docs/architecture.md, "Resume"): each stream's Observable, one
 * context per solver shared by all its streams (a relay holds thousands: nothing per account in it),
 * and one history gate per solver endpoint (`search.concurrency`, polls spread, `Retry-After`), whose
 * code loads with the first history request.
 *
 * @example
 * const resume = createResumeFeature({ timeoutMs: 5_000 }, createBackfill({}))
 */
export function createResumeFeature(http: SearchHttpOptions, backfill: ReturnType<typeof createBackfill>): ResumeFeature {
  const concurrency = resolveHistoryConcurrency(http.concurrency)
  const contexts = new Map<ResolvedSolver, ResumeContext>()
  let gateModule: Promise<typeof import('./HistoryGate.js')> | undefined
  const contextOf = (solver: ResolvedSolver, { pool, transport, stats, clientClosed }: Parameters<ResumeFeature['observe']>[0]): ResumeContext => {
    let ctx = contexts.get(solver)
    if (ctx) return ctx
    const pollers = new PollRate()
    let gate: HistoryGate | undefined
    ctx = {
      fetch: async (request, of) => {
        const { HistoryGate } = await (gateModule ??= import('./HistoryGate.js'))
        gate ??= new HistoryGate(concurrency, pool.timers, pollers)
        return gate.run(() => backfill(solver, of)(request), request.signal, request.poll === true)
      },
      polling: (stream, intervalMs) => pollers.polling(stream, intervalMs),
      keyOf: (of) => checkpointKey(solver.chainId, solver.solverId, of),
      release: (stream) => pool.release(stream),
      timers: pool.timers,
      backoff: transport,
      random: transport.random,
      stats,
      logger: transport.logger,
      clientClosed,
    }
    contexts.set(solver, ctx)
    return ctx
  }
  return {
    observe: (args) => {
      const { wanted, solver, account, view, pool } = args
      // A checkpoint read gets the search deadline.
      const settings = resolveResumeSettings(wanted, http.timeoutMs ?? 10_000)
      const unavailable = searchUnavailable(solver)
      if (unavailable) {
        // No retry loop and no flicker: the error, then `closed`, then the end.
        return new StreamObservable((subscriber) => {
          const out = view(subscriber)
          out.event({ type: 'error', error: unavailable })
          out.event({ type: 'status', status: 'closed', attempt: 0 })
          out.complete()
        })
      }
      return new StreamObservable((subscriber) => {
        // The stream sits between the socket and the subscriber; it is its own teardown (disposed and released): no closure kept per subscription.
        const stream = new ResumeStream(view(subscriber), contextOf(solver, args), account, settings)
        pool.acquire(solver, account, stream)
        stream.start(wanted === true ? undefined : wanted.since)
        return stream
      })
    },
  }
}
