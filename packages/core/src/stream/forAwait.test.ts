import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Live, accounts, startLive } from '@solver-notifications/test-support'
import { isServiceError } from '../errors/ServiceError.js'
import type { Notification } from '../protocol/types.js'

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
  // slow-1 goes to the waiting next(); slow-2..4 fill the buffer to its mark; slow-5 crosses it.
  for (let i = 1; i <= 5; i++) await sim.publish(frame(i, `slow-${i}`))
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
