import { Subject } from 'rxjs'
import { describe, expect, it, vi } from 'vitest'
import { isServiceError } from '../errors/ServiceError.js'
import { StreamObservable, withHighWaterMark } from './IterableObservable.js'

// The async-iterator contract of every stream (`for await`), written down as tests so a change of the
// lazy chunk or of the buffer cannot break it unnoticed: return/throw before, during and after next,
// concurrent next, next after done. (A chunk that fails to load: IterableObservable.chunk.test.ts.)

/** A stream over a Subject that counts its live subscriptions. */
function source(highWaterMark?: number) {
  const subject = new Subject<number>()
  let subscriptions = 0
  let subscribed = 0
  const stream = new StreamObservable<number>((subscriber) => {
    subscriptions++
    subscribed++
    const inner = subject.subscribe(subscriber)
    return () => {
      subscriptions--
      inner.unsubscribe()
    }
  })
  if (highWaterMark !== undefined) withHighWaterMark(stream, highWaterMark)
  return {
    subject,
    iterator: stream[Symbol.asyncIterator](),
    get subscriptions() {
      return subscriptions
    },
    get everSubscribed() {
      return subscribed
    },
  }
}

const done = { value: undefined, done: true }
const settle = () => new Promise((resolve) => setImmediate(resolve))
/** The loop's chunk loads asynchronously: wait until it subscribed. */
const subscribed = (s: { everSubscribed: number }) => vi.waitFor(() => expect(s.everSubscribed).toBe(1))

describe('before the first next()', () => {
  it('return() ends it: a later next() is done and never subscribes', async () => {
    const s = source()
    expect(await s.iterator.return!()).toEqual(done)
    expect(await s.iterator.next()).toEqual(done)
    await settle()
    expect(s.everSubscribed).toBe(0)
  })

  it('throw(e) rejects with e and ends it: a later next() is done and never subscribes', async () => {
    const s = source()
    const reason = new Error('stop')
    await expect(s.iterator.throw!(reason)).rejects.toBe(reason)
    expect(await s.iterator.next()).toEqual(done)
    await settle()
    expect(s.everSubscribed).toBe(0)
  })
})

describe('during next()', () => {
  it('return() while a next() waits: that next() is done, the subscription is released', async () => {
    const s = source()
    const waiting = s.iterator.next()
    await subscribed(s)
    expect(s.subscriptions).toBe(1)
    expect(await s.iterator.return!()).toEqual(done)
    expect(await waiting).toEqual(done)
    expect(s.subscriptions).toBe(0)
  })

  it('throw(e) while a next() waits: that next() is done, throw rejects with e, released', async () => {
    const s = source()
    const waiting = s.iterator.next()
    await subscribed(s)
    const reason = new Error('stop')
    await expect(s.iterator.throw!(reason)).rejects.toBe(reason)
    expect(await waiting).toEqual(done)
    expect(s.subscriptions).toBe(0)
  })

  it('concurrent next() calls get the values in order, each once', async () => {
    const s = source()
    const calls = [s.iterator.next(), s.iterator.next(), s.iterator.next()]
    await subscribed(s)
    expect(s.everSubscribed).toBe(1)
    s.subject.next(1)
    s.subject.next(2)
    s.subject.next(3)
    expect(await Promise.all(calls)).toEqual([1, 2, 3].map((value) => ({ value, done: false })))
    await s.iterator.return!()
  })

  it('concurrent next() calls when the stream completes: each waiting one is done', async () => {
    const s = source()
    const calls = [s.iterator.next(), s.iterator.next()]
    await subscribed(s)
    s.subject.next(1)
    s.subject.complete()
    expect(await Promise.all(calls)).toEqual([{ value: 1, done: false }, done])
  })

  it('a burst past highWaterMark that the loop takes before the next task (a backfill merged in one go) is no slow consumer', async () => {
    const s = source(2)
    const got: number[] = []
    const loop = (async () => {
      for (;;) {
        const next = await s.iterator.next()
        if (next.done) return
        got.push(next.value)
        if (got.length === 10) return
      }
    })()
    await subscribed(s)
    for (let i = 1; i <= 9; i++) s.subject.next(i) // 8 buffered at once, past the mark of 2
    // Past the check of the mark (armed at the crossing, a task later): still subscribed, nothing thrown.
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(s.subscriptions).toBe(1)
    s.subject.next(10)
    await loop
    expect(got).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  })

  it('a loop that takes one item a task works through a burst past the mark (it gets closer every task); a stream that outruns it is released', async () => {
    const s = source(2)
    const got: number[] = []
    let failure: unknown
    const loop = (async () => {
      try {
        for (;;) {
          const next = await s.iterator.next()
          if (next.done) return
          got.push(next.value)
          await new Promise((resolve) => setImmediate(resolve))
        }
      } catch (error) {
        failure = error
      }
    })()
    await subscribed(s)
    for (let i = 1; i <= 20; i++) s.subject.next(i)
    await vi.waitUntil(() => got.length === 20)
    expect(s.subscriptions).toBe(1)
    expect(failure).toBeUndefined()
    // Now faster than the loop: three items a turn of the event loop where it takes one, until released.
    let i = 20
    await new Promise<void>((resolve) => {
      const flood = () => {
        for (let k = 0; k < 3; k++) s.subject.next(++i)
        if (s.subscriptions === 0) resolve()
        else setImmediate(flood)
      }
      flood()
    })
    await loop
    expect(isServiceError(failure) && failure.code).toBe('SLOW_CONSUMER')
    // Everything received before the release, in order, nothing twice.
    expect(got).toEqual(Array.from({ length: got.length }, (_, k) => k + 1))
  })

  it('concurrent next() calls past highWaterMark: buffered items first, then SLOW_CONSUMER once, then done', async () => {
    const s = source(2)
    const first = s.iterator.next()
    await subscribed(s)
    for (let i = 1; i <= 4; i++) s.subject.next(i) // 1 to the waiting next(), 2..3 buffered, 4 crosses the mark
    // Checked once the burst's task is over: still subscribed now, released then (nobody took anything).
    expect(s.subscriptions).toBe(1)
    await vi.waitUntil(() => s.subscriptions === 0)
    expect(await first).toEqual({ value: 1, done: false })
    const results = await Promise.allSettled([s.iterator.next(), s.iterator.next(), s.iterator.next(), s.iterator.next(), s.iterator.next()])
    expect(results.slice(0, 3)).toEqual([2, 3, 4].map((value) => ({ status: 'fulfilled', value: { value, done: false } })))
    expect(results[3]!.status).toBe('rejected')
    expect(isServiceError((results[3] as PromiseRejectedResult).reason) && (results[3] as PromiseRejectedResult).reason.code).toBe('SLOW_CONSUMER')
    expect(results[4]).toEqual({ status: 'fulfilled', value: done })
  })
})

describe('after done', () => {
  it('next() after completion stays done; return() and throw() after it change nothing', async () => {
    const s = source()
    const first = s.iterator.next()
    await subscribed(s)
    s.subject.complete()
    expect(await first).toEqual(done)
    expect(await s.iterator.next()).toEqual(done)
    expect(await s.iterator.return!()).toEqual(done)
    const reason = new Error('late')
    await expect(s.iterator.throw!(reason)).rejects.toBe(reason)
    expect(await s.iterator.next()).toEqual(done)
    expect(s.everSubscribed).toBe(1)
  })

  it('next() after return() stays done and never subscribes again', async () => {
    const s = source()
    const first = s.iterator.next()
    await subscribed(s)
    s.subject.next(7)
    expect(await first).toEqual({ value: 7, done: false })
    await s.iterator.return!()
    expect(await s.iterator.next()).toEqual(done)
    s.subject.next(8)
    expect(await s.iterator.next()).toEqual(done)
    expect(s.everSubscribed).toBe(1)
    expect(s.subscriptions).toBe(0)
  })

  it('an error from the source rejects the waiting next() once, then done', async () => {
    const s = source()
    const first = s.iterator.next()
    await subscribed(s)
    const failure = new Error('source failed')
    s.subject.error(failure)
    await expect(first).rejects.toBe(failure)
    expect(await s.iterator.next()).toEqual(done)
  })
})
