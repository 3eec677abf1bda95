import { rejection } from '../../test/rejection.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Live, accounts, startLive } from '@solver-notifications/test-support'
import { createConfig } from '../config/createConfig.js'
import { ServiceRequestError } from '../errors/ServiceRequestError.js'
import { searchNotifications } from './searchNotifications.js'

let live: Live
beforeEach(async () => {
  live = await startLive()
})
afterEach(() => live.stop())


describe('enigma search', () => {
  it('an answer without data (the service omits it on zero hits) is an empty page, and paging an empty history ends', async () => {
    live.enigma.injectHttpFault({ rawBody: '{"total":0,"count":0}' })
    const result = await live.client.search({ solverId: 'alpha', account: accounts[2] })
    expect(result).toEqual({ kind: 'enigma', total: 0, count: 0, rows: [] })
    const pages = []
    for await (const page of live.client.searchPages({ solverId: 'alpha', account: accounts[2] })) pages.push(page.rows.length)
    expect(pages).toEqual([0])
  })

  it('POSTs {query, start, size} to searchUrl/api/v1/search with common filters mapped, unset ones omitted', async () => {
    const open = await live.enigma.instantOpen(accounts[0])
    await live.enigma.instantOpen(accounts[1])
    const result = await live.client.search({ solverId: 'alpha', account: accounts[0], quoteId: open.quoteId, size: 5 })
    expect(live.enigma.httpRequests().at(-1)).toEqual({
      method: 'POST',
      url: '/notification/api/v1/search',
      body: { query: { address: accounts[0], 'data.quote_id': open.quoteId }, start: 0, size: 5 },
    })
    expect(result.kind).toBe('enigma')
    expect([result.total, result.count, result.rows.map((r) => r.data.last_seen_action)]).toEqual([2, 2, ['FillLimitOrderOpen', 'InstantRFQ']])
    await live.client.search({ solverId: 'alpha', tempQuoteId: open.tempQuoteId, filter: { 'data.action_status': 'seen' } })
    expect(live.enigma.httpRequests().at(-1)!.body).toEqual({ query: { 'data.action_status': 'seen', 'data.temp_quote_id': open.tempQuoteId }, start: 0 })
  })

  it('uses baseUrl over searchUrl and never produces // from trailing slashes', async () => {
    await live.client.search({ solverId: 'alpha', baseUrl: `${live.enigma.httpUrl}/notification///` })
    expect(live.enigma.httpRequests().at(-1)!.url).toBe('/notification/api/v1/search')
  })

  it('SEARCH_URL_NOT_CONFIGURED without searchUrl or baseUrl', async () => {
    const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'e', solvers: { e: { notifications: { protocol: 'enigma', url: live.enigma.wsUrl, channel: 'C' } } } } } })
    const error = await rejection(searchNotifications(config, {}))
    expect([error.code, error.message]).toEqual(['SEARCH_URL_NOT_CONFIGURED', expect.stringContaining('pass baseUrl')])
    expect(live.enigma.httpRequests()).toHaveLength(0)
  })
})

describe('rasa search', () => {
  it('POSTs the snake_case body with explicit nulls to url/position-state/{start}/{size}, default size 100', async () => {
    const open = await live.rasa.instantOpen(accounts[0])
    const result = await live.client.search({ solverId: 'beta', account: accounts[0] })
    expect(live.rasa.httpRequests().at(-1)).toEqual({
      method: 'POST',
      url: '/position-state/0/100',
      body: { address: accounts[0], quote_id: null, create_time_gte: null, modify_time_gte: null },
    })
    expect(result).toEqual({ kind: 'rasa', count: 1, rows: [open.frames[2]] })
    await live.client.search({ solverId: 'beta', quoteId: open.quoteId, timestampGte: 5, start: 3, size: 7 })
    expect(live.rasa.httpRequests().at(-1)).toMatchObject({ url: '/position-state/3/7', body: { address: null, quote_id: open.quoteId, create_time_gte: null, modify_time_gte: 5 } })
  })
})

describe('validation before sending', () => {
  it.each([
    ['bad account', { solverId: 'beta', account: '0x12' }],
    ['negative start', { solverId: 'beta', start: -1 }],
    ['fractional start', { solverId: 'alpha', start: 1.5 }],
    ['zero size', { solverId: 'alpha', size: 0 }],
    ['fractional size', { solverId: 'alpha', size: 2.5 }],
    ['rasa size over 100', { solverId: 'beta', size: 101 }],
    ['bad filter key', { solverId: 'alpha', filter: { 'data..x': 1 } }],
    ['object filter value', { solverId: 'alpha', filter: { address: { $ne: 1 } } }],
    ['conflicting filter', { solverId: 'alpha', account: accounts[0], filter: { address: accounts[1] } }],
    ['conflicting quote filter', { solverId: 'alpha', quoteId: 1, filter: { 'data.quote_id': 2 } }],
    ['insecure baseUrl', { solverId: 'alpha', baseUrl: 'http://example.com' }],
    ['NaN quoteId', { solverId: 'alpha', quoteId: Number.NaN }],
  ])('%s → INVALID_PARAMETERS, no request', async (_name, params) => {
    const error = await rejection(live.client.search(params as never))
    expect(error.code).toBe('INVALID_PARAMETERS')
    expect(live.enigma.httpRequests().length + live.rasa.httpRequests().length).toBe(0)
  })

  it('accepts a filter that agrees with a common parameter', async () => {
    await live.client.search({ solverId: 'alpha', account: accounts[0], filter: { address: accounts[0].toLowerCase() } })
    expect(live.enigma.httpRequests()).toHaveLength(1)
  })
})

describe('responses and transport errors', () => {
  it('wrong shape or non-JSON → INVALID_RESPONSE with the body', async () => {
    live.rasa.injectHttpFault({ rawBody: JSON.stringify({ count: 'x', position_state: [] }) })
    const shape = await rejection(live.client.search({ solverId: 'beta' }))
    expect(shape).toBeInstanceOf(ServiceRequestError)
    expect([shape.code, shape.body, shape.url]).toEqual(['INVALID_RESPONSE', { count: 'x', position_state: [] }, `${live.rasa.httpUrl}/position-state/0/100`])
    expect(shape.message).toContain('expected { count, position_state: [...] }: count is a string, not a number')
    live.rasa.injectHttpFault({ rawBody: JSON.stringify({ count: 0 }) })
    expect((await rejection(live.client.search({ solverId: 'beta' }))).message).toContain('position_state is missing, not an array')
    live.enigma.injectHttpFault({ rawBody: JSON.stringify([1]) })
    expect((await rejection(live.client.search({ solverId: 'alpha' }))).message).toContain('expected { total, count, data: [...] }, got an array')
    live.rasa.injectHttpFault({ rawBody: JSON.stringify({ count: 1, position_state: [{ quote_id: 'abc' }] }) })
    expect((await rejection(live.client.search({ solverId: 'beta' }))).message).toContain('position_state.0.quote_id has the wrong type')
    live.enigma.injectHttpFault({ rawBody: '<html>oops</html>' })
    const html = await rejection(live.client.search({ solverId: 'alpha' }))
    expect([html.code, html.body]).toEqual(['INVALID_RESPONSE', '<html>oops</html>'])
  })

  it('keeps unknown fields of rows', async () => {
    live.rasa.injectHttpFault({ rawBody: JSON.stringify({ count: 1, position_state: [{ quote_id: 1, brand_new: true }], extra: 1 }) })
    const result = await live.client.search({ solverId: 'beta' })
    expect(result.rows[0]).toEqual({ quote_id: 1, brand_new: true })
  })

  it('non-2xx → HTTP_STATUS with status, method, url, body; other 4xx are not retried', async () => {
    live.rasa.injectHttpFault({ status: 404, body: { error: 'nope' } })
    const error = await rejection(live.client.search({ solverId: 'beta' }))
    expect([error.code, error.status, error.method, error.body]).toEqual(['HTTP_STATUS', 404, 'POST', { error: 'nope' }])
    expect(live.rasa.httpRequests()).toHaveLength(1)
  })

  it('retries up to 2 times on 503/429 honoring Retry-After, then succeeds', async () => {
    live.rasa.injectHttpFault({ times: 2, status: 503, retryAfterSeconds: 0 })
    const result = await live.client.search({ solverId: 'beta' })
    expect(result.kind).toBe('rasa')
    expect(live.rasa.httpRequests()).toHaveLength(3)
    live.rasa.injectHttpFault({ times: 3, status: 429, retryAfterSeconds: 0 })
    const error = await rejection(live.client.search({ solverId: 'beta' }))
    expect([error.code, error.status, error.retryAfterMs]).toEqual(['HTTP_STATUS', 429, 0])
    expect(live.rasa.httpRequests()).toHaveLength(6)
  })

  it('network errors are retried, then NETWORK', async () => {
    live.rasa.injectHttpFault({ times: 1, destroy: true })
    expect((await live.client.search({ solverId: 'beta' })).kind).toBe('rasa')
    live.rasa.injectHttpFault({ times: 3, destroy: true })
    expect((await rejection(live.client.search({ solverId: 'beta' }))).code).toBe('NETWORK')
    const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { url: 'http://127.0.0.1:1', notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:1' } } } } } })
    expect((await rejection(searchNotifications(config, {}, { retries: 0 }))).code).toBe('NETWORK')
  })

  it('TIMEOUT after timeoutMs; abort → ABORTED at once, no retries', async () => {
    live.rasa.injectHttpFault({ delayMs: 2000 })
    const timeout = await rejection(searchNotifications(live.config, { solverId: 'beta' }, { timeoutMs: 50 }))
    expect(timeout.code).toBe('TIMEOUT')
    live.rasa.injectHttpFault({ delayMs: 2000 })
    const controller = new AbortController()
    const pending = live.client.search({ solverId: 'beta' }, { signal: controller.signal })
    await expect.poll(() => live.rasa.httpRequests().length).toBe(2)
    controller.abort()
    expect((await rejection(pending)).code).toBe('ABORTED')
    expect(live.rasa.httpRequests()).toHaveLength(2)
    expect((await rejection(live.client.search({ solverId: 'beta' }, { signal: controller.signal }))).code).toBe('ABORTED')
    expect(live.rasa.httpRequests()).toHaveLength(2)
  })
})

describe('searchPages', () => {
  it('walks pages until the total is seen, and honors maxRows', async () => {
    for (let i = 0; i < 5; i++) await live.rasa.instantOpen(accounts[0])
    const pages = []
    for await (const page of live.client.searchPages({ solverId: 'beta', size: 2 })) pages.push(page.rows.length)
    expect(pages).toEqual([2, 2, 1])
    const capped = []
    for await (const page of live.client.searchPages({ solverId: 'beta', size: 2 }, { maxRows: 3 })) capped.push(page.rows.length)
    expect(capped).toEqual([2, 1])
    expect(live.rasa.httpRequests().map((r) => r.url).slice(-2)).toEqual(['/position-state/0/2', '/position-state/2/1'])
  })

  it('enigma: pages by 100 (not the service default of 20) unless size is given, and stops at total', async () => {
    for (let i = 0; i < 70; i++) await live.enigma.instantOpen(accounts[0]) // 210 documents
    const pages = []
    for await (const page of live.client.searchPages({ solverId: 'alpha' })) pages.push([page.rows.length, page.kind === 'enigma' && page.total])
    expect(pages).toEqual([[100, 210], [100, 210], [10, 210]])
    expect(live.enigma.httpRequests().map((r) => r.body as { start: number; size: number })).toEqual([
      { query: {}, start: 0, size: 100 },
      { query: {}, start: 100, size: 100 },
      { query: {}, start: 200, size: 100 },
    ])
    const sized = []
    for await (const page of live.client.searchPages({ solverId: 'alpha', size: 150 })) sized.push(page.rows.length)
    expect(sized).toEqual([150, 60])
  })

  it('stops with ABORTED when the signal aborts between pages', async () => {
    for (let i = 0; i < 3; i++) await live.rasa.instantOpen(accounts[0])
    const controller = new AbortController()
    const seen: number[] = []
    const walk = async () => {
      for await (const page of live.client.searchPages({ solverId: 'beta', size: 1 }, { signal: controller.signal })) {
        seen.push(page.rows.length)
        controller.abort()
      }
    }
    expect((await rejection(walk())).code).toBe('ABORTED')
    expect(seen).toEqual([1])
  })
})
