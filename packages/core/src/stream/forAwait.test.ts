import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { type Live, accounts, startLive } from '@solver-notifications/test-support'
import { isServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'
import type { QuoteBook } from '../quotes/QuoteState.js'
import type { NotificationEvent } from './NotificationEvent.js'

// `for await` over real sockets: the simulator publishes, a loop consumes, leaving it releases.

let live: Live
beforeEach(async () => {
  live = await startLive({ lingerMs: 0 })
})
afterEach(() => live.stop())

const [A] = accounts
const frame = (quote: number, id: string) => ({ id, quote_id: quote, temp_quote_id: -quote, modify_time: live.rasa.tick(), counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'success' })

it.each(['alpha', 'beta'] as const)('solver %s: for await receives notifications in order; break releases the subscription', async (solverId) => {
  const sim = solverId === 'alpha' ? live.enigma : live.rasa
  const stream = live.client.notifications({ account: A, solverId })
  const got: Array<string | null> = []
  const publishing = (async () => {
    await sim.waitForSubscribers(A)
    for (let i = 1; i <= 3; i++) await sim.publish(frame(i, `for-await-${i}`))
  })()
  for await (const n of stream) {
    got.push(n.id)
    if (got.length === 3) break
  }
  await publishing
  expect(got).toEqual(['for-await-1', 'for-await-2', 'for-await-3'])
  expect(live.client.stats().subscriptions).toBe(0)
})

it('a throw inside the loop releases the subscription like unsubscribe', async () => {
  const loop = async () => {
    for await (const e of live.client.events({ account: A, solverId: 'beta' }, { resume: true })) {
      if (e.type === 'status' && e.status === 'open') throw new Error('stop here')
    }
  }
  await expect(loop()).rejects.toThrow('stop here')
  expect(live.client.stats().subscriptions).toBe(0)
})

it.each(['alpha', 'beta'] as const)('solver %s: a consumer slower than highWaterMark gets every item received first, then SLOW_CONSUMER, and the stream is released', async (solverId) => {
  const sim = solverId === 'alpha' ? live.enigma : live.rasa
  const iterator = live.client.notifications({ account: A, solverId }, { highWaterMark: 3 })[Symbol.asyncIterator]()
  const first = iterator.next() // subscribes
  await sim.waitForSubscribers(A)
  // slow-1 goes to the waiting next(); slow-2..4 fill the buffer to its mark; slow-5 crosses it, and
  // with nobody reading the stream is released (the mark is checked once that socket read is over).
  for (let i = 1; i <= 5; i++) await sim.publish(frame(i, `slow-${i}`))
  await vi.waitUntil(() => live.client.stats().subscriptions === 0)
  expect(((await first).value as Notification).id).toBe('slow-1')
  const seen: string[] = []
  let failure: unknown
  try {
    for (;;) {
      const next = await iterator.next()
      if (next.done) break
      seen.push((next.value as Notification).id!)
      // Published after the release: never received, so never yielded.
      if (seen.length === 1) for (let i = 6; i <= 9; i++) await sim.publish(frame(i, `slow-${i}`))
    }
  } catch (error) {
    failure = error
  }
  expect(seen).toEqual(['slow-2', 'slow-3', 'slow-4', 'slow-5'])
  expect(isServiceError(failure) && failure.code).toBe('SLOW_CONSUMER')
  expect(live.client.stats().subscriptions).toBe(0)
  // The error is thrown once; the iterator is done after it.
  expect(await iterator.next()).toEqual({ value: undefined, done: true })
})

it.each(['alpha', 'beta'] as const)('solver %s: an events loop slower than highWaterMark: every event received, then one continuity event incomplete slow-consumer, then SLOW_CONSUMER', async (solverId) => {
  const sim = solverId === 'alpha' ? live.enigma : live.rasa
  const iterator = live.client.events({ account: A, solverId }, { highWaterMark: 3 })[Symbol.asyncIterator]()
  const first = iterator.next() // subscribes
  await sim.waitForSubscribers(A)
  const before = Math.floor(Date.now() / 1000)
  for (let i = 1; i <= 5; i++) await sim.publish(frame(i, `slow-event-${i}`))
  await vi.waitUntil(() => live.client.stats().subscriptions === 0)
  const seen: NotificationEvent[] = [(await first).value as NotificationEvent]
  let failure: unknown
  try {
    for (;;) {
      const next = await iterator.next()
      if (next.done) break
      seen.push(next.value as NotificationEvent)
    }
  } catch (error) {
    failure = error
  }
  const told = seen.map((e) => (e.type === 'notification' ? e.notification.id : e.type === 'continuity' ? `${e.continuity.state} ${e.continuity.reason ?? ''}` : e.type))
  // The events of the open socket come first; the last item says the stream is gone.
  expect(told.filter((t) => t?.startsWith('slow-event-'))).toEqual(told.filter((t) => t?.startsWith('slow-event-')).map((_, i) => `slow-event-${i + 1}`))
  expect(told.at(-1)).toBe('incomplete slow-consumer')
  expect(told.filter((t) => t === 'incomplete slow-consumer')).toHaveLength(1)
  const last = seen.at(-1) as Extract<NotificationEvent, { type: 'continuity' }>
  expect(last.continuity.missing!.from).toBeGreaterThanOrEqual(before)
  expect(isServiceError(failure) && failure.code).toBe('SLOW_CONSUMER')
  expect(live.client.stats().subscriptions).toBe(0)
})

it('a quote-book loop slower than highWaterMark: its last book is the latest one with continuity incomplete slow-consumer, then SLOW_CONSUMER', async () => {
  const iterator = live.client.quotes({ account: A, solverId: 'beta' }, { highWaterMark: 2 })[Symbol.asyncIterator]()
  const books: QuoteBook[] = []
  let next = await iterator.next()
  while (!next.done && !(next.value as QuoteBook).ready) {
    books.push(next.value as QuoteBook)
    next = await iterator.next()
  }
  books.push(next.value as QuoteBook)
  // One quote per socket read (each received before the next is sent): each is a book of its own,
  // and the loop reads none of them yet.
  await live.rasa.waitForSubscribers(A)
  const delivered = live.client.stats().frames.delivered
  // Until the book is released for the slow loop (past two books buffered).
  for (let i = 1; live.client.stats().subscriptions > 0; i++) {
    expect(i).toBeLessThanOrEqual(3)
    await live.rasa.publish(frame(i, `slow-book-${i}`))
    await vi.waitUntil(() => live.client.stats().frames.delivered >= delivered + i || live.client.stats().subscriptions === 0)
  }
  let failure: unknown
  try {
    for (;;) {
      next = await iterator.next()
      if (next.done) break
      books.push(next.value as QuoteBook)
    }
  } catch (error) {
    failure = error
  }
  const last = books.at(-1)!
  const before = books.at(-2)!
  expect(last.continuity).toMatchObject({ state: 'incomplete', reason: 'slow-consumer' })
  expect(books.filter((b) => b.continuity?.reason === 'slow-consumer')).toHaveLength(1)
  // The same quotes as the last book received: only its continuity says the stream is gone.
  expect(last.quotes.map((q) => q.key)).toEqual(before.quotes.map((q) => q.key))
  expect(last.quotes.length).toBeGreaterThan(0)
  expect(isServiceError(failure) && failure.code).toBe('SLOW_CONSUMER')
  expect(live.client.stats().subscriptions).toBe(0)
})

it.each(['alpha', 'beta'] as const)("solver %s: a loop that keeps up is not thrown SLOW_CONSUMER by a backfill's own burst (248 history rows into highWaterMark 100)", async (solverId) => {
  const sim = solverId === 'alpha' ? live.enigma : live.rasa
  const base = Math.floor(Date.now() / 1000) - 500
  for (let i = 0; i < 248; i++) {
    await sim.publish({ id: `burst-${i}`, quote_id: 2000 + i, temp_quote_id: -(2000 + i), modify_time: base + i, counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'success' }, { live: false })
  }
  const got: string[] = []
  // 0 ms per item: the loop takes each item as soon as it is there.
  for await (const n of live.client.notifications({ account: A, solverId }, { resume: { since: base }, highWaterMark: 100 })) {
    got.push(n.id!)
    if (got.length === 248) break
  }
  expect(got).toEqual(Array.from({ length: 248 }, (_, i) => `burst-${i}`))
  expect(live.client.stats().subscriptions).toBe(0)
})

it('quote books are for-await-able too', async () => {
  for await (const book of live.client.quotes({ account: A, solverId: 'beta' })) {
    if (book.ready) {
      expect(book.quotes).toEqual([])
      break
    }
  }
  expect(live.client.stats().subscriptions).toBe(0)
})

it('highWaterMark must be a positive integer, checked at the call', () => {
  expect(() => live.client.notifications({ account: A }, { highWaterMark: 0 })).toThrowError(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
  expect(() => live.client.quotes({ account: A }, { highWaterMark: 1.5 })).toThrowError(expect.objectContaining({ code: 'INVALID_PARAMETERS' }))
})

it.each(['alpha', 'beta'] as const)('solver %s: return() before the first next() ends the iterator: a later next() is done, no subscription, no socket, no timer', async (solverId) => {
  const iterator = live.client.events({ account: A, solverId }, { resume: true })[Symbol.asyncIterator]()
  expect(await iterator.return!()).toEqual({ value: undefined, done: true })
  expect(await iterator.next()).toEqual({ value: undefined, done: true })
  const stats = live.client.stats()
  expect([stats.subscriptions, stats.sockets, stats.timers]).toEqual([0, 0, 0])
})
