import type { ResolvedSolver } from '../../config/types.js'
import { ServiceError } from '../../errors/ServiceError.js'
import { capDelay } from '../../utils/capDelay.js'
import type { createBackfill } from '../../search/backfill.js'
import type { SearchHttpOptions } from '../../search/postJson.js'
import { searchProtocols } from '../../protocol/searchProtocols.js'
import { searchUnavailable } from '../../search/searchUnavailable.js'
import type { HistoryReader } from '../../transport/ListenerPool.js'
import type { Diagnostics } from '../../transport/Diagnostics.js'
import type { Timers } from '../../transport/Timers.js'
import type { ResumeFeature } from '../createStreamClient.js'
import { StreamObservable } from '../IterableObservable.js'
import { checkpointKey } from './CheckpointStore.js'
import type { HistoryGate } from './HistoryGate.js'
import { resolveHistoryConcurrency } from './historyConcurrency.js'
import { type ResumeContext, ResumeStream } from './ResumeStream.js'
import { resolveResumeSettings } from './resumeOptions.js'

/**
 * Resume streams for the full client (docs/architecture.md, "Resume"): each stream's Observable, one
 * context per solver shared by all its streams (a relay holds thousands: nothing per account in it),
 * and one history gate per solver endpoint (`search.concurrency`, polls spread, `Retry-After`), whose
 * code loads with the first history request.
 *
 * @example
 * const resume = createResumeFeature({ timeoutMs: 5_000 }, createBackfill({}), () => timersOf(client))
 */
export function createResumeFeature(
  http: SearchHttpOptions,
  backfill: ReturnType<typeof createBackfill>,
  /** the client's timers (what the gates arm shows in `stats().timers`), asked when first needed */
  timersOf: () => Timers,
  /** the client's diagnostics seam (the gates report their waits there), asked when first needed */
  diagnosticsOf: () => Diagnostics | undefined = () => undefined,
): ResumeFeature & { read: HistoryReader } {
  const concurrency = resolveHistoryConcurrency(http.concurrency)
  const timeoutMs = http.timeoutMs ?? 10_000
  const contexts = new Map<ResolvedSolver, ResumeContext>()
  /** per solver: its streams polling now with their intervals, the polls per ms they ask for, its gate once loaded */
  const gates = new Map<ResolvedSolver, { polling: Map<object, number>; rate: number; gate?: HistoryGate }>()
  let gateModule: Promise<typeof import('./HistoryGate.js')> | undefined
  const gateOf = (solver: ResolvedSolver) => {
    let g = gates.get(solver)
    if (!g) gates.set(solver, (g = { polling: new Map(), rate: 0 }))
    return g
  }
  /** This tab's history reads of a solver, through its gate (its code loads with the first read). */
  const read: HistoryReader = async (solver, account, ask) => {
    const g = gateOf(solver)
    const { HistoryGate } = await (gateModule ??= import('./HistoryGate.js'))
    const d = diagnosticsOf()
    g.gate ??= new HistoryGate(concurrency, timersOf(), g, {
      cap: capDelay,
      gated: (waitedMs, outcome) => {
        if (d?.active) d.emit({ type: 'gate', waitedMs, outcome })
      },
      late: (waitedMs, retryAfterMs) =>
        Object.assign(
          new ServiceError(
            'TIMEOUT',
            `History of ${solver.chainId}/${solver.solverId} did not start within ${waitedMs} ms: its requests are queued (search.concurrency ${concurrency} in flight${retryAfterMs === undefined ? '' : `, the service asked for ${Math.ceil(retryAfterMs / 1000)} s of Retry-After`}). Live frames were released; the gap is retried later. Raise search.concurrency or search.timeoutMs if history is slow but healthy.`,
          ),
          { retryAfterMs },
        ),
    })
    // A backfill may wait for the gate one attempt's deadline; a poll that plus its interval (polls are spread).
    return g.gate.run(() => backfill(solver, account)(ask), ask.signal, ask.poll !== undefined, timeoutMs + (ask.poll ?? 0))
  }
  const contextOf = (solver: ResolvedSolver, { pool, transport, stats, clientClosed }: Parameters<ResumeFeature['observe']>[0]): ResumeContext => {
    let ctx = contexts.get(solver)
    if (ctx) return ctx
    const g = gateOf(solver)
    ctx = {
      // Cross-tab: one reader per stream key per browser (the pool asks the leader tab); else this tab reads.
      fetch: (request, of) => (pool.history ? pool.history(solver, of, request) : read(solver, of, request)),
      // A stream started polling every `intervalMs`, or stopped (undefined): the gate spaces polls by the sum.
      polling: (stream, intervalMs) => {
        const had = g.polling.get(stream)
        if (had === intervalMs) return
        if (had) g.rate -= 1 / had
        if (intervalMs) g.polling.set(stream, intervalMs)
        else g.polling.delete(stream)
        // No drift from adding and taking away fractions: none polling is exactly none.
        g.rate = g.polling.size && g.rate + (intervalMs ? 1 / intervalMs : 0)
      },
      keyOf: (of) => checkpointKey(solver.chainId, solver.solverId, of),
      release: (stream) => pool.release(stream),
      timers: pool.timers,
      backoff: transport,
      random: transport.random,
      stats,
      logger: transport.logger,
      clientClosed,
      diagnostics: transport.diagnostics,
      protocol: solver.notifications.protocol,
      destination: `${solver.chainId}.${solver.solverId}`,
      verifiers: { streams: 0, taken: new Set() },
      latestStateOnly: searchProtocols[solver.notifications.protocol as keyof typeof searchProtocols]?.latestStateOnly === true,
    }
    contexts.set(solver, ctx)
    return ctx
  }
  return {
    read,
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

