import { Observable } from 'rxjs'
import { ServiceError } from '../errors/ServiceError.js'
import { backgroundTimer } from '../transport/Timers.js'
import { describe } from '../utils/address.js'

/**
 * An Observable that is also an async iterable: `subscribe` as usual, or `for await` it (Node
 * scripts, workers). Leaving the loop (`break`, `return`, a throw) releases the subscription.
 *
 * @example
 * for await (const n of client.notifications({ account })) console.log(n.quoteId, n.type)
 */
export type IterableObservable<T> = Observable<T> & AsyncIterable<T>

/** The default `highWaterMark`: items an async iterator buffers for a consumer slower than its stream. */
export const DEFAULT_HIGH_WATER_MARK = 10_000

/** Checks a `highWaterMark` option (a positive integer), at the call. */
export function resolveHighWaterMark(value: unknown, where: string): number {
  if (value === undefined) return DEFAULT_HIGH_WATER_MARK
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new ServiceError('INVALID_PARAMETERS', `${where} highWaterMark must be a positive integer (items buffered for a slow for-await loop), got ${describe(value)}`)
  }
  return value
}

/**
 * The Observable every stream call returns: `for await`-able through a method on the class (no
 * property per stream: subscribing 10,000 accounts stays cheap). Each loop subscribes anew; a consumer
 * slower than the stream is buffered up to `highWaterMark` items, past which the subscription is
 * released: the loop still gets every item received until then, in order (events and quote books then
 * one more saying `incomplete slow-consumer`), and then the iterator throws `SLOW_CONSUMER` (nothing is
 * dropped silently; what came after the release was never received).
 */
export class StreamObservable<T> extends Observable<T> implements AsyncIterable<T> {
  /** set by the stream call when not the default (10,000); no field otherwise, so an idle stream stays small */
  declare highWaterMark?: number
  /** what the stream's items are, when a loop released for `SLOW_CONSUMER` is told so by a last item (its continuity, docs/guide/continuity.md) */
  declare ending?: StreamEnding

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return lazyIterator(this, this.highWaterMark ?? DEFAULT_HIGH_WATER_MARK, this.ending)
  }
}

/** Items whose kind can say `incomplete slow-consumer` before the loop throws: events (a continuity event) and quote books (the last book, with that continuity). */
export type StreamEnding = 'event' | 'book'

/** Sets a stream's `highWaterMark` (validated by the caller) and what its items are, and returns it. */
export function withHighWaterMark<T>(stream: StreamObservable<T>, highWaterMark: number, ending?: StreamEnding): StreamObservable<T> {
  if (highWaterMark !== DEFAULT_HIGH_WATER_MARK) stream.highWaterMark = highWaterMark
  if (ending) stream.ending = ending
  return stream
}

/**
 * The loop's code is a chunk of its own, fetched at its first `next()` (an app that only subscribes
 * never downloads it); the subscription starts once it is there. Leaving before the first `next()`
 * loads nothing.
 */
function lazyIterator<T>(source: Observable<T>, highWaterMark: number, ending: StreamEnding | undefined): AsyncIterator<T> {
  let inner: Promise<AsyncIterator<T>> | undefined
  /** return() or throw() came before the first next() (nothing is loaded or subscribed then), or the chunk failed to load and one next() was told: done for good */
  let told = false
  const done = () => Promise.resolve({ value: undefined, done: true } as IteratorResult<T>)
  const load = () =>
    (inner ??= import('./iterate.js').then(
      ({ iterate }) => iterate(source, highWaterMark, ServiceError, backgroundTimer, ending),
      (cause: unknown) => Promise.reject(new ServiceError('NETWORK', `for await could not load its code (${String(cause)}): check the network.`, { cause })),
    ))
  return {
    next: () =>
      !inner && told
        ? done()
        : load().then(
            (it) => it.next(),
            (error: unknown) => {
              if (told) return done()
              told = true
              throw error
            },
          ),
    return: () => {
      if (!inner) told = true
      return inner ? inner.then((it) => it.return!(), done) : done()
    },
    throw: (error?: unknown) => {
      if (!inner) told = true
      return inner ? inner.then((it) => it.throw!(error), () => Promise.reject(error)) : Promise.reject(error)
    },
  }
}
