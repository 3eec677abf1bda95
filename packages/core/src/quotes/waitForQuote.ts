import type { Subscription } from 'rxjs'
import type { NotificationsConfigInput, ResolvedSolver } from '../config/types.js'
import type { ServiceError, isServiceError } from '../errors/ServiceError.js'
import type { isSameNotification } from '../protocol/notificationKey.js'
import type { Notification } from '../protocol/types.js'
import type { Diagnostics } from '../transport/Diagnostics.js'
import type { BackfillFetch } from '../search/backfill.js'
import type { NotificationsStreamClient } from '../stream/createStreamClient.js'
import type { Timers } from '../transport/Timers.js'
import type { Address } from '../utils/address.js'
import type { setLongTimeout } from '../utils/setLongTimeout.js'
import type { QuoteLedger } from './QuoteLedger.js'
import type { QuoteState, WaitForOptions, WaitForParams } from './QuoteState.js'
import type { CheckedWait } from './checkWaitFor.js'

/** The chase: first at once (or after this when the socket is slow to open), doubling up to the cap. */
const CHASE_FIRST_MS = 500
const CHASE_MAX_MS = 10_000
/** History rows one chase may read (a quote has a handful; this bounds a rasa account-wide read). */
const CHASE_MAX_ROWS = 10_000

/**
 * What a wait uses of the code every app loads, handed over by the client when this chunk loads: a
 * lazy chunk imports nothing of it (docs/architecture.md, "Lazy chunks").
 */
export interface WaitKit {
  readonly ServiceError: typeof ServiceError
  readonly isServiceError: typeof isServiceError
  readonly setLongTimeout: typeof setLongTimeout
  readonly isSameNotification: typeof isSameNotification
  /** the client's diagnostics seam: a wait's start and end (spans: `solver_notifications waitFor`) */
  readonly diagnostics?: Diagnostics | undefined
}

/**
 * `client.waitFor` (docs/architecture.md, "Quote state"): resolves with the quote once `until` holds, from live frames or from
 * history. Solvers do not announce every confirmation, so while the live stream is silent about the
 * quote it chases history for it (500 ms, doubling to 10 s). Settling clears everything it started:
 * the stream, the timer, the request in flight. A chunk of its own (the client loads it when a wait
 * starts): it imports nothing of the code every app loads, which comes in `kit`.
 */
export function waitForQuote<C extends NotificationsConfigInput>(
  stream: NotificationsStreamClient<C>,
  history: (solver: ResolvedSolver, account: Address) => BackfillFetch,
  params: WaitForParams,
  options: WaitForOptions,
  /** the options as {@link checkWaitFor} checked them */
  checked: CheckedWait,
  /** the client's timers: what a wait arms shows in `stats().timers` */
  timers: Timers,
  kit: WaitKit,
): Promise<QuoteState> {
  // A solver that cannot be resolved rejects the Promise like every other outcome.
  let waiting: Promise<QuoteState>
  try {
    waiting = start(stream, history, params, options, checked, timers, kit)
  } catch (error) {
    waiting = Promise.reject(error)
  }
  const d = kit.diagnostics
  if (!d?.active) return waiting
  const id = d.id()
  let protocol = ''
  let destination = ''
  try {
    const solver = stream.config.getSolver({ chainId: params.chainId, solverId: params.solverId })
    protocol = solver.notifications.protocol
    destination = `${solver.chainId}.${solver.solverId}`
  } catch {
    // rejected above: its end says so
  }
  d.emit({ type: 'waitFor', phase: 'start', id, protocol, destination })
  return waiting.then(
    (state) => {
      d.emit({ type: 'waitFor', phase: 'end', id, outcome: 'reached' })
      return state
    },
    (error: unknown) => {
      const code = kit.isServiceError(error) ? error.code : undefined
      d.emit({ type: 'waitFor', phase: 'end', id, outcome: code === 'TIMEOUT' ? 'timeout' : code === 'ABORTED' ? 'aborted' : 'failed', errorCode: code })
      throw error
    },
  )
}

function start<C extends NotificationsConfigInput>(
  stream: NotificationsStreamClient<C>,
  history: (solver: ResolvedSolver, account: Address) => BackfillFetch,
  params: WaitForParams,
  options: WaitForOptions,
  checked: CheckedWait,
  timers: Timers,
  { ServiceError, isServiceError, setLongTimeout, isSameNotification }: WaitKit,
): Promise<QuoteState> {
  const { quoteId, tempQuoteId } = params
  const { until, timeoutMs, maxTransitions } = checked
  const solver = stream.config.getSolver({ chainId: params.chainId, solverId: params.solverId })
  // The client's timers: the deadline and the chase show in stats().timers and are cleared with the rest.
  const account = params.account
  const fetch = history(solver, account)
  const signal = options.signal
  const wanted = quoteId !== undefined ? `quote ${quoteId}` : `temporary quote ${tempQuoteId}`

  return new Promise<QuoteState>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ServiceError('ABORTED', `waitFor ${wanted} was aborted before it started`, { cause: signal.reason }))
      return
    }
    let ledger: QuoteLedger | undefined
    const early: Notification[] = []
    // The ids the quote is known by; the other one is learnt from the first frame that has both.
    const ids = { quoteId, tempQuoteId }
    let heard = false
    let chasing: AbortController | undefined
    let chased = 0
    let delay = CHASE_FIRST_MS
    let lastError: ServiceError | undefined
    let settled = false
    let chaseTimer: ReturnType<typeof setTimeout> | undefined

    const finish = (outcome: () => void) => {
      if (settled) return
      settled = true
      chaseTimer = timers.clear(chaseTimer)
      cancelDeadline()
      chasing?.abort()
      subscription?.unsubscribe()
      signal?.removeEventListener('abort', onAbort)
      outcome()
    }
    const take = (n: Notification): boolean => {
      const mine = (ids.quoteId !== undefined && n.quoteId === ids.quoteId) || (ids.tempQuoteId !== undefined && n.tempQuoteId === ids.tempQuoteId)
      if (!mine) return false
      if (n.quoteId > 0) ids.quoteId ??= n.quoteId
      if (n.tempQuoteId !== null) ids.tempQuoteId ??= n.tempQuoteId
      if (!ledger) {
        early.push(n)
        return true
      }
      const state = ledger.apply(n)
      if (!state) return true
      let holds: boolean
      try {
        holds = until(state)
      } catch (cause) {
        finish(() => reject(new ServiceError('CALLBACK', `waitFor's until threw: ${(cause as Error)?.message ?? String(cause)}. Fix the predicate.`, { cause })))
        return true
      }
      if (holds) finish(() => resolve(state))
      return true
    }
    const chase = () => {
      chaseTimer = undefined
      if (settled) return
      // Live frames about the quote since the last look: history has nothing newer to say yet.
      if (heard && chased > 0) {
        heard = false
        arm()
        return
      }
      heard = false
      chased++
      const controller = new AbortController()
      chasing = controller
      fetch({ since: 0, maxRows: CHASE_MAX_ROWS, known: () => false, signal: controller.signal, quote: { quoteId, tempQuoteId } }).then(
        (result) => {
          if (controller.signal.aborted) return
          chasing = undefined
          lastError = undefined
          for (const n of result.notifications) if (settled || take(n)) continue
          arm()
        },
        (cause: unknown) => {
          if (controller.signal.aborted) return
          chasing = undefined
          // A failed look is retried at the next step; the last one is named if time runs out.
          lastError = isServiceError(cause) ? cause : new ServiceError('NETWORK', String(cause), { cause })
          arm()
        },
      )
    }
    const arm = () => {
      if (settled || chaseTimer !== undefined || chasing) return
      chaseTimer = timers.set(chase, delay)
      delay = Math.min(delay * 2, CHASE_MAX_MS)
    }
    const onAbort = () => finish(() => reject(new ServiceError('ABORTED', `waitFor ${wanted} was aborted`, { cause: signal?.reason })))
    // Chained above 2^31−1 ms, where a plain setTimeout would fire at once.
    const cancelDeadline = setLongTimeout(
      () => {
        const state = ledger?.get(ids)
        const where = state ? `it is ${state.status}` : 'nothing was heard of it'
        const why = lastError ? `; the last history look failed: ${lastError.message}` : ''
        finish(() => reject(new ServiceError('TIMEOUT', `waitFor ${wanted} timed out after ${timeoutMs} ms: ${where}${why}. Raise timeoutMs or check the quote id.`)))
      },
      timeoutMs,
      (fn, ms) => timers.set(fn, ms),
      (handle) => timers.clear(handle),
    )
    signal?.addEventListener('abort', onAbort, { once: true })
    let subscription: Subscription | undefined
    subscription = stream.events({ account, chainId: params.chainId, solverId: params.solverId as never }).subscribe((event) => {
      if (event.type === 'notification') {
        if (take(event.notification)) heard = true
      } else if (event.type === 'status' && event.status === 'open' && chased === 0 && !chasing) {
        // History is read once the live subscription exists, so nothing falls between the two.
        chaseTimer = timers.clear(chaseTimer)
        chase()
      }
    })
    if (settled) subscription.unsubscribe()
    else arm()
    // The quote engine (ledger, status table) is a chunk of its own, fetched when a wait starts (an app
    // that never waits or reads quote state does not download it); what arrives meanwhile waits for it.
    import('./QuoteLedger.js').then(
      ({ QuoteLedger }) => {
        if (settled) return
        ledger = new QuoteLedger(account, maxTransitions, isSameNotification)
        for (const n of early.splice(0)) if (!settled) take(n)
      },
      (cause: unknown) => finish(() => reject(new ServiceError('NETWORK', `waitFor could not load its code (${String(cause)}): check the network.`, { cause }))),
    )
  })
}
