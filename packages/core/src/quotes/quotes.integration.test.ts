import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { record } from '@solver-notifications/test-support'
import { type NotificationsClient, createNotificationsClient } from '../client/createNotificationsClient.js'
import { createConfig } from '../config/createConfig.js'
import { isServiceError } from '../errors/ServiceError.js'
import type { QuoteBook } from './QuoteState.js'

// Live quote state against the real simulator, over real sockets and HTTP.

const A = '0xAbC0000000000000000000000000000000000001' as const
const T0 = Math.floor(Date.now() / 1000)

let sims: SolverSimulator[] = []
let clients: NotificationsClient[] = []
afterEach(async () => {
  for (const c of clients) c.close()
  await Promise.all(sims.map((s) => s.close()))
  sims = []
  clients = []
})

async function setup(protocol: 'enigma' | 'rasa') {
  const sim = await startSolverSimulator({ protocol, enigmaOrder: 'shuffled' })
  sims.push(sim)
  const config = createConfig({
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 's',
        solvers: { s: { url: sim.httpUrl, notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } },
      },
    },
  })
  const make = () => {
    const client = createNotificationsClient({ config, lingerMs: 20, reconnect: { baseDelayMs: 20, maxDelayMs: 40 } })
    clients.push(client)
    return client
  }
  return { sim, client: make(), make }
}

const summary = (book: QuoteBook) => book.quotes.map((q) => `${q.key} ${q.quoteId} ${q.tempQuoteId} ${q.status}`)
const ready = (books: QuoteBook[]) => books.at(-1)?.ready === true

describe.each(['enigma', 'rasa'] as const)('%s quote book', (protocol) => {
  it('first load with history already there: ready with every quote once, an old open position included; then live joins by id', async () => {
    const { sim, client } = await setup(protocol)
    // An old position still open, under 150 newer settled ones (more than a page of history).
    await sim.publish({ id: 'old', quote_id: 7, temp_quote_id: -7, counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'success', filled_amount_open: '3', modify_time: T0 - 90_000, create_time: T0 - 90_000 })
    for (let i = 0; i < 150; i++) {
      await sim.publish({ id: `f${i}`, quote_id: 100 + i, temp_quote_id: -(100 + i), counterparty_address: A, last_seen_action: 'InstantRFQ', action_status: 'failed', modify_time: T0 - 80_000 + i, create_time: T0 - 80_000 + i })
    }
    const opened = await sim.instantOpen(A)
    const books = record(client.quotes({ account: A }))
    expect(books.values[0]).toMatchObject({ ready: false, quotes: [] })
    await books.until(ready)
    const book = books.values.at(-1)!
    expect(book.quotes).toHaveLength(152)
    expect(book.error).toBeNull()
    expect(summary(book)[0]).toBe(`t${opened.tempQuoteId} ${opened.quoteId} ${opened.tempQuoteId} open`)
    expect(book.quotes.find((q) => q.quoteId === 7)).toMatchObject({ status: 'open', filledAmountOpen: '3', settled: false })
    expect(book.quotes.filter((q) => q.status === 'failed')).toHaveLength(150)
    // Newest first.
    const times = book.quotes.map((q) => q.modifyTime!)
    expect(times).toEqual([...times].sort((a, b) => b - a))

    // A new quote, live: one row from its temporary id to its fill; the rows that did not change keep their objects.
    await sim.waitForSubscribers(A)
    const before = book.quotes
    const next = await sim.instantOpen(A)
    await books.until((v) => v.at(-1)!.quotes[0]?.quoteId === next.quoteId && v.at(-1)!.quotes[0]!.filledAmountOpen !== null)
    const after = books.values.at(-1)!.quotes
    expect(after).toHaveLength(153)
    expect(after[0]).toMatchObject({ key: `t${next.tempQuoteId}`, status: 'open', tempQuoteId: next.tempQuoteId })
    expect(after[0]!.transitions.map((t) => [t.lastSeenAction, t.actionStatus, t.source])).toEqual([
      ['InstantRFQ', 'seen', 'live'],
      ['InstantRFQ', 'success', 'live'],
      ['FillLimitOrderOpen', 'success', 'live'],
    ])
    expect(after.slice(1)).toEqual(before)
    for (let i = 0; i < before.length; i++) expect(after[i + 1]).toBe(before[i])
    // Every emitted book is a change.
    const keys = books.values.map((b) => `${b.ready} ${b.status} ${b.error?.code} ${b.quotes.length} ${b.quotes[0]?.modifyTime} ${b.quotes[0]?.status} ${b.quotes[0]?.transitions.length}`)
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('a reload (a new client) shows the same book', async () => {
    const { sim, client, make } = await setup(protocol)
    const a = await sim.instantOpen(A)
    await sim.instantOpen(A)
    await sim.closeRequest(a.quoteId)
    await sim.fail(A)
    const first = record(client.quotes({ account: A }))
    await first.until(ready)
    first.subscription.unsubscribe()
    const second = record(make().quotes({ account: A }))
    await second.until(ready)
    expect(summary(second.values.at(-1)!)).toEqual(summary(first.values.at(-1)!))
    const statuses = new Map(first.values.at(-1)!.quotes.map((q) => [q.quoteId, q.status]))
    expect(statuses.get(a.quoteId)).toBe('closed')
    expect([...statuses.values()].sort()).toEqual(['closed', 'failed', 'open'])
  })

  it('waitFor: a close fill the solver never announces live is confirmed by chasing history', async () => {
    const { sim, client } = await setup(protocol)
    const opened = await sim.instantOpen(A)
    const waiting = client.waitFor({ account: A, quoteId: opened.quoteId }, { until: 'closed', timeoutMs: 30_000 })
    await sim.waitForSubscribers(A)
    const t = sim.tick()
    const base = { quote_id: opened.quoteId, temp_quote_id: opened.tempQuoteId, counterparty_address: A, create_time: T0 }
    await sim.publish({ ...base, id: 'req', last_seen_action: 'InstantRequestToClosePosition', action_status: 'success', modify_time: t })
    // Lost on the socket: only history has it.
    await sim.publish({ ...base, id: 'fill', last_seen_action: 'FillOrderInstantClose', action_status: 'success', filled_amount_open: '1.5', filled_amount_close: '1.5', modify_time: t + 1 }, { live: false })
    const state = await waiting
    expect(state).toMatchObject({ quoteId: opened.quoteId, status: 'closed', settled: true, filledAmountClose: '1.5' })
    expect(state.transitions.at(-1)).toMatchObject({ id: 'fill', source: 'backfill' })
    // Nothing left behind: its stream is released at once.
    expect(client.stats().subscriptions).toBe(0)
  })

  it('waitFor resolves from history when the quote already got there, by temporary id too', async () => {
    const { sim, client } = await setup(protocol)
    const failed = await sim.fail(A)
    const state = await client.waitFor({ account: A, tempQuoteId: failed.tempQuoteId }, { until: ['failed', 'cancelled'] })
    expect(state).toMatchObject({ status: 'failed', tempQuoteId: failed.tempQuoteId, failureType: 'INSUFFICIENT_MARGIN' })
  })
})

describe('waitFor gives up cleanly', () => {
  it('TIMEOUT names the last status; ABORTED on abort; nothing is left behind', async () => {
    const { sim, client } = await setup('rasa')
    const opened = await sim.instantOpen(A)
    const timedOut = await client.waitFor({ account: A, quoteId: opened.quoteId }, { until: 'closed', timeoutMs: 300 }).catch((e: unknown) => e)
    expect(isServiceError(timedOut) && timedOut.code).toBe('TIMEOUT')
    expect((timedOut as Error).message).toContain('it is open')
    const controller = new AbortController()
    const aborted = client.waitFor({ account: A, quoteId: opened.quoteId }, { until: (q) => q.filledAmountClose !== null, signal: controller.signal }).catch((e: unknown) => e)
    controller.abort()
    expect(await aborted).toMatchObject({ code: 'ABORTED' })
    expect(client.stats().subscriptions).toBe(0)
    // Bad arguments reject the Promise (an app's .catch sees them), never throw at the call.
    await expect(client.waitFor({ account: A, quoteId: -3 }, { until: 'closed' })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: expect.stringMatching(/tempQuoteId/) })
    await expect(client.waitFor({ account: A, quoteId: 3 }, { until: 'done' as never })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS', message: expect.stringMatching(/until must be a quote status/) })
    await expect(client.waitFor({ account: '0x12' as never, quoteId: 3 }, { until: 'closed' })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS' })
    await expect(client.waitFor({ account: A, quoteId: 3 }, undefined as never)).rejects.toMatchObject({ code: 'INVALID_PARAMETERS' })
  })
})
