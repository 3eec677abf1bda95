import { Subject } from 'rxjs'
import { expect, it, vi } from 'vitest'
import { isServiceError } from '../errors/ServiceError.js'
import { StreamObservable } from './IterableObservable.js'

// The loop's code is a lazy chunk; on a page that lost its network the chunk fails to load.
vi.mock('./iterate.js', () => {
  throw new Error('Failed to fetch dynamically imported module')
})

it('a chunk that fails to load: next() rejects NETWORK, nothing is subscribed, return() still ends it', async () => {
  const subject = new Subject<number>()
  let subscribed = 0
  const stream = new StreamObservable<number>((subscriber) => {
    subscribed++
    return subject.subscribe(subscriber)
  })
  const iterator = stream[Symbol.asyncIterator]()
  const failure = await iterator.next().then(
    () => undefined,
    (error: unknown) => error,
  )
  expect(isServiceError(failure) && failure.code).toBe('NETWORK')
  expect((failure as Error).message).toContain('for await could not load its code')
  expect(await iterator.return!()).toEqual({ value: undefined, done: true })
  expect(await iterator.next()).toEqual({ value: undefined, done: true })
  expect(subscribed).toBe(0)
})
