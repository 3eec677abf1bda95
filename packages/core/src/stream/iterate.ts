import type { Observable, Subscription } from 'rxjs'
import type { ServiceError } from '../errors/ServiceError.js'

type Waiter<T> = { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }

/**
 * The async iterator of a stream (a lazy chunk: `ServiceError` is handed over, see
 * docs/architecture.md, "Lazy chunks"). It subscribes at the first `next()`; a consumer slower than
 * the stream is buffered up to `highWaterMark` items, past which the subscription is released: the
 * loop still gets every item received until then, in order, and then `SLOW_CONSUMER` is thrown.
 */
export function iterate<T>(source: Observable<T>, highWaterMark: number, Failure: typeof ServiceError): AsyncIterator<T> {
  const buffer: T[] = []
  let head = 0
  let ended = false
  let failure: unknown
  let waiter: Waiter<T> | undefined
  let subscription: Subscription | undefined
  let stopWhenSubscribed = false
  const stop = () => {
    if (subscription) subscription.unsubscribe()
    else stopWhenSubscribed = true
  }
  const wake = () => {
    const w = waiter
    if (!w) return
    waiter = undefined
    if (head < buffer.length) w.resolve({ value: take(), done: false })
    else if (failure !== undefined) w.reject(failure)
    else w.resolve({ value: undefined, done: true })
  }
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
  const finish = (error?: unknown) => {
    if (ended) return
    ended = true
    failure = error
    wake()
  }
  const leave = () => {
    stop()
    buffer.length = 0
    head = 0
    ended = true
    failure = undefined
    wake()
  }
  const start = () => {
    subscription = source.subscribe({
      next(value) {
        if (ended) return
        if (waiter) {
          const w = waiter
          waiter = undefined
          w.resolve({ value, done: false })
          return
        }
        buffer.push(value)
        if (buffer.length - head > highWaterMark) {
          // The stream is released so nothing more piles up; what was received is still yielded, in
          // order, and only then the error is thrown (nothing is discarded).
          stop()
          finish(
            new Failure(
              'SLOW_CONSUMER',
              `A for-await loop fell more than highWaterMark (${highWaterMark}) items behind its stream; the stream was released so nothing piles up without bound. Handle items faster (hand slow work to a queue), or raise highWaterMark on the stream call.`,
            ),
          )
        }
      },
      error: (error: unknown) => finish(error),
      complete: () => finish(),
    })
    if (stopWhenSubscribed) subscription.unsubscribe()
  }
  return {
    next() {
      if (!subscription && !ended) start()
      if (head < buffer.length) return Promise.resolve({ value: take(), done: false })
      if (ended) {
        const error = failure
        failure = undefined
        return error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(error)
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        waiter = { resolve, reject }
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
