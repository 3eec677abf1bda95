import type { Observable, Subscription } from 'rxjs'
import type { ServiceError } from '../errors/ServiceError.js'
import type { Continuity } from '../transport/Continuity.js'
import type { StreamEnding } from './IterableObservable.js'
import type { NotificationEvent } from './NotificationEvent.js'

type Waiter<T> = { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }

/**
 * The async iterator of a stream (a lazy chunk: `ServiceError` is handed over, see
 * docs/architecture.md, "Lazy chunks"). It subscribes at the first `next()`; a consumer slower than
 * the stream is buffered up to `highWaterMark` items; once it is past them and not catching up (looked
 * at a task after the crossing, and every task while it gets closer), the subscription is released: the
 * loop still gets every item received until then, in order, then (events and quote books) an item
 * saying the stream is `incomplete` for good (`slow-consumer`), and then `SLOW_CONSUMER` is thrown
 * (once: the iterator is done after it). Concurrent `next()` calls are answered in call order.
 */
export function iterate<T>(
  source: Observable<T>,
  highWaterMark: number,
  Failure: typeof ServiceError,
  /** arms the check of the mark once the current task is over (handed in: this chunk imports nothing the initial bundle has) */
  later: (fn: () => void, ms: number) => () => void,
  ending?: StreamEnding,
): AsyncIterator<T> {
  const buffer: T[] = []
  let head = 0
  let ended = false
  /** the error to throw once the buffer is drained (thrown once: after it the iterator is done) */
  let failure: unknown
  /** next() calls waiting, in call order (concurrent next() calls each get their own item) */
  const waiters: Array<Waiter<T>> = []
  let subscription: Subscription | undefined
  const take = (): T => {
    const value = buffer[head]!
    buffer[head++] = undefined as T
    // Compacted now and then, so a long loop does not keep what it read.
    if (head > 1024 && head * 2 > buffer.length) {
      buffer.splice(0, head)
      head = 0
    }
    return value
  }
  /** What the next next() gets, once the stream ended: the buffer, then the error once, then done. */
  const settle = (w: Waiter<T>) => {
    if (head < buffer.length) w.resolve({ value: take(), done: false })
    else if (failure !== undefined) {
      const error = failure
      failure = undefined
      w.reject(error)
    } else w.resolve({ value: undefined, done: true })
  }
  const finish = (error?: unknown) => {
    if (ended) return
    ended = true
    failure = error
    for (const w of waiters.splice(0)) settle(w)
  }
  /** the pending check of the mark, armed when an item crosses it */
  let cancelCheck: (() => void) | undefined
  const leave = () => {
    cancelCheck?.()
    subscription?.unsubscribe()
    buffer.length = 0
    head = 0
    ended = true
    failure = undefined
    for (const w of waiters.splice(0)) w.resolve({ value: undefined, done: true })
  }
  /** how far behind the loop was at the last check past the mark (a loop still catching up is let be) */
  let behindBefore = Number.POSITIVE_INFINITY
  const check = () => {
    cancelCheck = undefined
    const behind = buffer.length - head
    if (ended || behind <= highWaterMark) {
      behindBefore = Number.POSITIVE_INFINITY
      return
    }
    // Past the mark but closer than a task ago (a burst it is working through): looked at again next task.
    if (behind < behindBefore) {
      behindBefore = behind
      cancelCheck = later(check, 0)
      return
    }
    // The stream is released so nothing more piles up; what was received is still yielded, in
    // order, and only then the error is thrown (nothing is discarded).
    subscription?.unsubscribe()
    const word = ending && lastWord(ending, buffer[buffer.length - 1])
    if (word) buffer.push(word as T)
    finish(
      new Failure(
        'SLOW_CONSUMER',
        `A for-await loop fell more than highWaterMark (${highWaterMark}) items behind its stream, which was released so nothing piles up. Handle items faster (hand slow work to a queue) or raise highWaterMark on the stream call.`,
      ),
    )
  }
  const start = () => {
    subscription = source.subscribe({
      next(value) {
        if (ended) return
        const w = waiters.shift()
        if (w) {
          w.resolve({ value, done: false })
          return
        }
        buffer.push(value)
        // Falling behind is past the mark and not catching up, looked at once the stream's burst is over:
        // a backfill merges its rows in one go, and a loop that keeps up works through them (checked a
        // task later, and each task after while it gets closer), not at the item that crossed the mark
        // (docs/guide/getting-started.md, "In Node").
        if (!cancelCheck && buffer.length - head > highWaterMark) cancelCheck = later(check, 0)
      },
      error: (error: unknown) => finish(error),
      complete: () => finish(),
    })
    // Ended while subscribing (a synchronous complete or error): nothing stays subscribed.
    if (ended) subscription.unsubscribe()
  }
  return {
    next() {
      if (!subscription && !ended) start()
      if (head < buffer.length || ended) {
        return new Promise<IteratorResult<T>>((resolve, reject) => settle({ resolve, reject }))
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        waiters.push({ resolve, reject })
      })
    },
    // Leaving the loop (`break`, `return`, a throw) releases the subscription like unsubscribe().
    return() {
      leave()
      return Promise.resolve({ value: undefined, done: true })
    },
    throw(error?: unknown) {
      leave()
      return Promise.reject(error)
    },
  }
}

/**
 * The last item of a stream released for a slow loop: what came after the release is missing from
 * now on (docs/guide/continuity.md), said as the stream's items say continuity (a book: the last one
 * received, with that continuity).
 */
function lastWord(ending: StreamEnding, last: unknown): NotificationEvent | object | undefined {
  // Built here, not with the main chunk's helper: importing it would split that module into a chunk of its own.
  const now = Date.now()
  const continuity: Continuity = Object.freeze({ state: 'incomplete', since: now, reason: 'slow-consumer', missing: { from: Math.floor(now / 1000) } })
  // A quote book (quotes/ sits above stream/: only its shape is known here); `quotes` is a getter.
  const book = last as { readonly quotes: readonly unknown[] } | undefined
  return ending === 'event' ? Object.freeze({ type: 'continuity', continuity }) : book && Object.freeze({ ...book, continuity, quotes: book.quotes })
}
