import type { QuoteBookSnapshot } from '../stream/ClientSnapshot.js'
import type { NotificationsConfigInput } from '../config/types.js'
import { PLAUSIBLE_POSITION, isPlausiblePosition } from '../utils/plausibleTime.js'
import { ServiceError } from '../errors/ServiceError.js'
import { isSameNotification } from '../protocol/notificationKey.js'
import type { NotificationsStreamClient } from '../stream/createStreamClient.js'
import type { SocketStatus } from '../transport/TransportEvent.js'
import { assertAddress, describe } from '../utils/address.js'
import { type IterableObservable, StreamObservable, resolveHighWaterMark, withHighWaterMark } from '../stream/IterableObservable.js'
import type { Continuity } from '../transport/Continuity.js'
import { LATEST_STATE_IS_WHOLE, type ResumeOptions } from '../stream/resume/resumeOptions.js'
import type { QuoteLedger } from './QuoteLedger.js'
import type { QuoteListVersion } from './QuoteList.js'
import type { Notification } from '../protocol/types.js'
import type { QuoteBook, QuoteState, QuotesOptions, QuotesParams } from './QuoteState.js'

/** The list of a book before the quote engine has loaded. */
const NO_QUOTES: Pick<QuoteListVersion, 'quotes'> = { quotes: () => [] }

/** A book whose `quotes` array is built on first read (see {@link QuoteListVersion}). */
class Book implements QuoteBook {
  /** this book's own copy of the list, made on first read: a reader may sort or splice it, no other book sees that */
  readonly #cache: { quotes?: readonly QuoteState[] } = {}
  readonly #version: Pick<QuoteListVersion, 'quotes'>

  constructor(
    readonly ready: boolean,
    readonly status: SocketStatus,
    readonly error: ServiceError | null,
    readonly continuity: Continuity | undefined,
    version: Pick<QuoteListVersion, 'quotes'>) {
    this.#version = version
    Object.freeze(this)
  }
  get quotes(): readonly QuoteState[] {
    this.#cache.quotes ??= this.#version.quotes().slice()
    return this.#cache.quotes
  }
  /** Spread and JSON see the quotes as a plain field. */
  toJSON(): QuoteBook {
    return { ready: this.ready, status: this.status, error: this.error, continuity: this.continuity, quotes: this.quotes }
  }
}

/**
 * `client.quotes` (docs/architecture.md, "Quote state"): subscribes first (a resume stream from `since`, or from the start of the
 * account's history), so the snapshot and the live frames meet with no gap, folds both into a
 * {@link QuoteLedger}, and emits a book once per change. Changes that arrive together (one history
 * snapshot, one socket read) are one book: they are applied at once and emitted on the next microtask.
 * It never errors; failures are the book's `error`.
 */
export function quoteBooks<C extends NotificationsConfigInput>(
  stream: NotificationsStreamClient<C>,
  params: QuotesParams,
  options: QuotesOptions = {},
  /** where an open book shows itself to `client.inspect()` */
  open?: Set<() => QuoteBookSnapshot>,
): IterableObservable<QuoteBook> {
  assertAddress(params?.account)
  const { since, maxSnapshotRows = 10_000, maxTransitions = 50 } = options ?? {}
  if (since !== undefined && !isPlausiblePosition(since)) {
    throw new ServiceError('INVALID_PARAMETERS', `quotes since must be ${PLAUSIBLE_POSITION}, got ${describe(since)} (milliseconds? divide by 1000)`)
  }
  for (const [name, value] of [['maxSnapshotRows', maxSnapshotRows], ['maxTransitions', maxTransitions]] as const) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new ServiceError('INVALID_PARAMETERS', `quotes ${name} must be a positive integer, got ${describe(value)}`)
    }
  }
  const events = stream.events(
    { account: params.account, chainId: params.chainId, solverId: params.solverId as never },
    // The whole history when no `since`: an old position that is still open belongs in the book.
    { resume: { since: since ?? 0, maxBackfillRows: maxSnapshotRows, dedupeWindow: Math.max(2_048, maxSnapshotRows), poll: options?.poll, [LATEST_STATE_IS_WHOLE]: true } as ResumeOptions },
  )
  const highWaterMark = resolveHighWaterMark(options?.highWaterMark, 'quotes')
  return withHighWaterMark(
    new StreamObservable<QuoteBook>((subscriber) => {
    let error: ServiceError | null = null
    // The quote engine (ledger, status table) is a chunk of its own, fetched at the first subscription:
    // an app that never asks for quote state does not download it. The stream is subscribed at once
    // (nothing is missed) and what arrives before the engine waits for it.
    let ledger: QuoteLedger | undefined
    const early: Notification[] = []
    let ready = false
    let status: SocketStatus = 'connecting'
    let continuity: Continuity | undefined
    /** the snapshot's own truncation: it stays on the book, the snapshot is incomplete */
    let incomplete: ServiceError | null = null
    let truncating = false
    let last: Book | undefined
    let lastVersion: Pick<QuoteListVersion, 'quotes'> | undefined
    let scheduled = false
    let done = false
    const emit = () => {
      scheduled = false
      if (done) return
      const version = ledger?.list() ?? NO_QUOTES
      // Ready only once the engine holds what the snapshot brought.
      const isReady = ready && ledger !== undefined
      // The engine's first (empty) list is the same list the book before it showed.
      const sameList = lastVersion === version || (lastVersion === NO_QUOTES && ledger !== undefined && ledger.size === 0)
      if (last && last.ready === isReady && last.status === status && last.error === error && last.continuity === continuity && sameList) return
      last = new Book(isReady, status, error, continuity, version)
      lastVersion = version
      subscriber.next(last)
    }
    const schedule = () => {
      if (scheduled || done) return
      scheduled = true
      queueMicrotask(emit)
    }
    const subscription = events.subscribe({
      next: (event) => {
        if (event.type === 'notification') {
          if (!ledger) early.push(event.notification)
          else if (ledger.apply(event.notification)) schedule()
          return
        }
        if (event.type === 'continuity') {
          continuity = event.continuity
          schedule()
          return
        }
        if (event.type === 'error') {
          error = event.error
          // The snapshot's truncation error follows its `truncated` status.
          if (truncating && event.error.code === 'BACKFILL_TRUNCATED') incomplete = event.error
          truncating = false
        } else {
          status = event.status
          const backfill = event.backfill?.state
          truncating = backfill === 'truncated' && !ready
          if (backfill === 'finished' || backfill === 'truncated') ready = true
          // The next success clears a failure; an incomplete snapshot stays reported.
          if (status === 'open' || backfill === 'finished') error = incomplete
        }
        schedule()
      },
      complete: () => {
        emit()
        done = true
        subscriber.complete()
      },
    })
    emit()
    import('./QuoteLedger.js').then(
      ({ QuoteLedger }) => {
        if (done) return
        ledger = new QuoteLedger(params.account, maxTransitions, isSameNotification, (message) => {
          error = new ServiceError('INVALID_AMOUNT', message)
          schedule()
        })
        for (const n of early.splice(0)) ledger.apply(n)
        schedule()
      },
      (cause: unknown) => {
        error = new ServiceError('NETWORK', `The quote book could not load its code (${String(cause)}): check the network.`, { cause })
        schedule()
      },
    )
    const look = () => ({ account: params.account, chainId: params.chainId, solverId: params.solverId, size: ledger?.size ?? 0, ready: ready && ledger !== undefined })
    open?.add(look)
    return () => {
      done = true
      open?.delete(look)
      subscription.unsubscribe()
    }
  }),
    highWaterMark,
    'book',
  )
}
