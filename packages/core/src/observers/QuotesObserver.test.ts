import { Subject } from 'rxjs'
import { expect, it, vi } from 'vitest'
import type { NotificationsClient } from '../client/createNotificationsClient.js'
import type { QuoteBook } from '../quotes/QuoteState.js'
import { QuotesObserver } from './QuotesObserver.js'

const A = '0xAbC0000000000000000000000000000000000001'
const B = '0xAbC0000000000000000000000000000000000002'

/** A client whose quote books the test pushes (a unit test of the observer alone). */
function fake() {
  const books = new Map<string, Subject<QuoteBook>>()
  const quotes = vi.fn((params: { account: string }, options?: { since?: number }) => {
    const subject = new Subject<QuoteBook>()
    books.set(`${params.account} ${options?.since}`, subject)
    return subject
  })
  return { client: { quotes } as unknown as NotificationsClient, quotes, books }
}

const book = (n: number): QuoteBook => ({ ready: true, status: 'open', error: null, quotes: Array.from({ length: n }, () => ({}) as never) })

it('is idle, not ready and empty without an account or when disabled, and asks for nothing', () => {
  const { client, quotes } = fake()
  const observer = new QuotesObserver(client, { account: null })
  const stop = observer.subscribe(() => {})
  expect(observer.getSnapshot()).toEqual({ ready: false, status: 'idle', error: null, quotes: [] })
  observer.setOptions({ account: A, enabled: false })
  expect(quotes).not.toHaveBeenCalled()
  stop()
})

it('hands out each book as it is, moves with account and since (not with a new options object), and stops on the last unsubscribe', () => {
  const { client, quotes, books } = fake()
  const observer = new QuotesObserver(client, { account: A })
  const seen: QuoteBook[] = []
  const stop = observer.subscribe(() => seen.push(observer.getSnapshot()))
  const first = book(1)
  books.get(`${A} undefined`)!.next(first)
  expect(observer.getSnapshot()).toBe(first)
  observer.setOptions({ account: A })
  expect(quotes).toHaveBeenCalledTimes(1)
  observer.setOptions({ account: A, since: 5 })
  observer.setOptions({ account: B, since: 5 })
  expect(quotes.mock.calls.map(([p, o]) => [p.account, o?.since])).toEqual([
    [A, undefined],
    [A, 5],
    [B, 5],
  ])
  expect(books.get(`${A} undefined`)!.observed).toBe(false)
  stop()
  expect(books.get(`${B} 5`)!.observed).toBe(false)
  expect(seen.map((s) => s.status)).toEqual(['open', 'idle'])
  expect(observer.getServerSnapshot().status).toBe('idle')
})

it('a refused account is state, not a crash', () => {
  const observer = new QuotesObserver({ quotes: () => { throw Object.assign(new Error('bad address'), {}) } } as unknown as NotificationsClient, { account: '0xnope' as never })
  observer.subscribe(() => {})
  expect(observer.getSnapshot()).toMatchObject({ status: 'idle', ready: false, error: { code: 'INVALID_PARAMETERS' } })
})
