import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { rejection } from '../../test/rejection.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createConfig } from '../config/createConfig.js'
import type { SearchHttpOptions } from './postJson.js'
import { searchNotifications } from './searchNotifications.js'
import { searchPages } from './searchPages.js'

// A hostile or unlucky history service on 127.0.0.1: every case here broke a promise of the search
// client before it was fixed.

const account = '0xAbC0000000000000000000000000000000000001'
type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void
const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve).closeAllConnections())))
})

async function serve(handler: Handler) {
  const hits: Array<{ url: string; at: number }> = []
  const server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', at: Date.now() })
    req.resume()
    req.on('end', () => handler(req, res, hits.length))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, hits }
}

const rasaConfig = (url: string) =>
  createConfig({
    defaultChainId: 1,
    chains: { 1: { defaultSolver: 'r', solvers: { r: { url, notifications: { protocol: 'rasa', url: url.replace('http', 'ws') } } } } },
  })
const enigmaConfig = (url: string) =>
  createConfig({
    defaultChainId: 1,
    chains: { 1: { defaultSolver: 'e', solvers: { e: { notifications: { protocol: 'enigma', url: url.replace('http', 'ws'), channel: 'C', searchUrl: url } } } } },
  })

const search = (url: string, options: SearchHttpOptions = {}) => searchNotifications(rasaConfig(url), { account }, { retries: 0, ...options })
const emptyPage = JSON.stringify({ count: 0, position_state: [] })

describe('deadlines cover every body', () => {
  it.each([500, 400])('an HTTP %i whose body never ends is TIMEOUT after search.timeoutMs, not pending for ever', async (status) => {
    const { url } = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.write('{"error":')
    })
    const error = await rejection(search(url, { timeoutMs: 300 }))
    expect([error.code, error.status]).toEqual(['TIMEOUT', undefined])
  })
})

describe('redirects', () => {
  it('a redirect to another origin is REDIRECT naming where it pointed; the other origin is never asked', async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(200).end(emptyPage))
    const { url } = await serve((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/steal?token=S3CRET` }).end())
    const error = await rejection(search(url))
    expect(error.code).toBe('REDIRECT')
    expect(error.status).toBe(307)
    expect(error.message).toContain(`${elsewhere.url}/steal?token=***`)
    expect(error.message).not.toContain('S3CRET')
    expect(elsewhere.hits).toHaveLength(0)
  })

  it('https answering a redirect to http is REDIRECT: the account is never sent in clear text', async () => {
    const asked: string[] = []
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      asked.push(String(input instanceof Request ? input.url : input))
      expect(init?.redirect).toBe('manual')
      return new Response(null, { status: 307, headers: { location: 'http://192.0.2.2/position-state/0/100' } })
    }
    const config = createConfig({
      defaultChainId: 1,
      chains: { 1: { defaultSolver: 'r', solvers: { r: { url: 'https://solver.example', notifications: { protocol: 'rasa', url: 'wss://solver.example/ws' } } } } },
    })
    const error = await rejection(searchNotifications(config, { account }, { fetch, retries: 2 }))
    expect([error.code, error.message]).toEqual(['REDIRECT', expect.stringContaining('http://192.0.2.2/position-state/0/100')])
    expect(asked).toEqual(['https://solver.example/position-state/0/100'])
  })

  it('a same-origin 307 is followed with the same body; a loop fails at once', async () => {
    const target = await serve((req, res) => {
      if (req.url === '/position-state/0/100') res.writeHead(307, { location: '/moved/position-state/0/100' }).end()
      else res.writeHead(200).end(emptyPage)
    })
    expect(await search(target.url)).toEqual({ kind: 'rasa', count: 0, rows: [] })
    expect(target.hits.map((h) => h.url)).toEqual(['/position-state/0/100', '/moved/position-state/0/100'])

    const loop = await serve((req, res) => res.writeHead(308, { location: req.url === '/a' ? '/position-state/0/100' : '/a' }).end())
    const error = await rejection(search(loop.url, { retries: 2 }))
    expect([error.code, error.message]).toEqual(['REDIRECT', expect.stringContaining('loop')])
    expect(loop.hits).toHaveLength(2)
  })
})

describe('memory bombs', () => {
  it('a gzip body inflating past maxResponseBytes is RESPONSE_TOO_LARGE, read no further', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20))
    const { url } = await serve((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' }).end(bomb))
    const error = await rejection(search(url, { maxResponseBytes: 1024 * 1024, retries: 2 }))
    expect([error.code, error.message]).toEqual(['RESPONSE_TOO_LARGE', expect.stringContaining('maxResponseBytes')])
  })

  it('a declared content-length over the limit is refused before reading', async () => {
    const { url, hits } = await serve((_req, res) => res.writeHead(200, { 'content-length': String(5_000_000) }).end(' '.repeat(5_000_000)))
    const error = await rejection(search(url, { maxResponseBytes: 1_000_000, retries: 2 }))
    expect(error.code).toBe('RESPONSE_TOO_LARGE')
    expect(hits).toHaveLength(1)
  })

  it('a 100,000-deep JSON body is INVALID_RESPONSE, never a RangeError', async () => {
    const deep = `{"count":1,"position_state":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`
    const deepObject = `{"count":1,"position_state":[{"quote_id":1,"x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}]}`
    for (const body of [deep, deepObject, '['.repeat(100_000) + ']'.repeat(100_000)]) {
      const { url } = await serve((_req, res) => res.writeHead(200).end(body))
      const error = await rejection(search(url))
      expect([error.name, error.code]).toEqual(['ServiceRequestError', 'INVALID_RESPONSE'])
    }
  })
})

describe('Retry-After', () => {
  it('as an HTTP date is honoured: the retry waits until that second has passed', async () => {
    const { url, hits } = await serve((_req, res, hit) => {
      if (hit === 1) res.writeHead(503, { 'retry-after': new Date(Date.now() + 2000).toUTCString() }).end('{}')
      else res.writeHead(200).end(emptyPage)
    })
    await search(url, { retries: 1 })
    expect(hits).toHaveLength(2)
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(2000)
  })

  it('as an HTTP date is on the error (retryAfterMs), where backfill reads it', async () => {
    const { url } = await serve((_req, res) => res.writeHead(429, { 'retry-after': new Date(Date.now() + 5000).toUTCString() }).end('{}'))
    const error = await rejection(search(url))
    expect(error.code).toBe('HTTP_STATUS')
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(5000)
    expect(error.retryAfterMs).toBeLessThanOrEqual(6000)
  })
})

describe('paging a service that ignores start', () => {
  it('stops with INVALID_RESPONSE after a page adds nothing new', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ quote_id: i + 1, counterparty_address: account, modify_time: 1_700_000_000 + i }))
    const { url, hits } = await serve((_req, res) => res.writeHead(200).end(JSON.stringify({ count: 1000, position_state: rows })))
    const pages: number[] = []
    const error = await rejection(
      (async () => {
        for await (const page of searchPages(rasaConfig(url), { account }, { retries: 0 })) pages.push(page.rows.length)
      })(),
    )
    expect([error.code, error.message]).toEqual(['INVALID_RESPONSE', expect.stringContaining('start')])
    expect(pages).toEqual([100])
    expect(hits).toHaveLength(2)
  })
})

describe('pages that lie about their size', () => {
  // rasa pages of 100: a service that ignores size and answers 50,000 rows (it honours start)
  const liar = () =>
    serve((req, res) => {
      const start = Number(/position-state\/(\d+)\//.exec(req.url ?? '')?.[1] ?? 0)
      const rows = Array.from({ length: 50_000 }, (_, i) => ({ id: `r${start + i}`, quote_id: start + i + 1, counterparty_address: account, modify_time: 1_763_700_000 + ((start + i) % 1000) }))
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count: 60_000, position_state: rows }))
    })

  it('search: a page longer than the size asked is INVALID_RESPONSE', async () => {
    const { url } = await liar()
    const error = await rejection(searchNotifications(rasaConfig(url), { account, size: 100 }, { retries: 0 }))
    expect([error.code, error.message]).toEqual(['INVALID_RESPONSE', expect.stringContaining('50000 rows for a page of size 100')])
  })

  it('backfill: pages are cut to the size asked and reported; maxBackfillRows counts rows, not pages', async () => {
    const { url } = await liar()
    const { createBackfill } = await import('./backfill.js')
    const fetch = createBackfill({ retries: 0 })(rasaConfig(url).getSolver(), account)
    const result = await fetch({ since: 0, maxRows: 1_000, known: () => false, signal: new AbortController().signal })
    expect(result.notifications).toHaveLength(1_000)
    expect(result.truncated).toEqual({ left: 59_000 })
    expect(result.overlong).toBe(10 * 49_900)
  })
})

describe('path and paging parameters are safe integers', () => {
  it.each([
    ['rasa start 1e21', 'r', { start: 1e21 }],
    ['rasa start above 2^53', 'r', { start: 2 ** 53 }],
    ['enigma start 1e21', 'e', { start: 1e21 }],
    ['enigma size 1e21', 'e', { size: 1e21 }],
  ] as const)('%s is INVALID_PARAMETERS, nothing sent', async (_name, solver, params) => {
    const { url, hits } = await serve((_req, res) => res.writeHead(200).end(emptyPage))
    const config = solver === 'r' ? rasaConfig(url) : enigmaConfig(url)
    const error = await rejection(searchNotifications(config as ReturnType<typeof rasaConfig>, { account, ...params }))
    expect(error.code).toBe('INVALID_PARAMETERS')
    expect(hits).toHaveLength(0)
  })
})

describe('secrets in answers and callbacks are never printed', () => {
  const SECRETS = ['tok-SeCrEt-1', 'apikey-SeCrEt-2', 'sess-SeCrEt-3', 'bearer-SeCrEt-4']
  const leaks = (text: string) => SECRETS.filter((s) => text.includes(s))
  /** Everything an app may print of an error: its JSON, its inspection, its message, its cause. */
  const printed = async (error: unknown) => {
    const { inspect } = await import('node:util')
    return [JSON.stringify(error), inspect(error, { depth: 10 }), String(error), JSON.stringify((error as { body?: unknown }).body)].join('\n')
  }

  it('a failing answer echoing credentials (secret-named keys at any depth) reaches ServiceRequestError.body redacted', async () => {
    const echoed = { error: 'unauthorized', token: SECRETS[0], request: { headers: { 'x-api-key': SECRETS[1], cookie: `session=${SECRETS[2]}` }, note: `Authorization: Bearer ${SECRETS[3]}` } }
    const { url } = await serve((_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(echoed)))
    const error = await rejection(search(url))
    expect(error.code).toBe('UNAUTHORIZED')
    expect(leaks(await printed(error))).toEqual([])
    // What is not secret stays readable.
    expect(error.body).toMatchObject({ error: 'unauthorized', token: '***', request: { headers: { 'x-api-key': '***', cookie: '***' } } })
  })

  it('a failing answer that is text (not JSON) is redacted like any text: "key": "value" pairs and Bearer credentials', async () => {
    const text = `upstream said {"token": "${SECRETS[0]}", "api_key":"${SECRETS[1]}"} with Authorization: Bearer ${SECRETS[3]} and Basic ${SECRETS[2]}`
    const { url } = await serve((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(text.slice(0, -1)))
    const error = await rejection(search(url))
    expect(error.code).toBe('HTTP_STATUS')
    expect(leaks(await printed(error))).toEqual([])
    expect(String(error.body)).toContain('upstream said')
  })

  it('an auth.headers value with a line break is refused (AUTH) without echoing it, and nothing is sent', async () => {
    const { url, hits } = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(emptyPage))
    const error = await rejection(search(url, { auth: { headers: () => ({ authorization: `Bearer ${SECRETS[3]}\r\nx-injected: 1` }) } }))
    expect(error.code).toBe('AUTH')
    expect(error.message).toContain('authorization')
    expect(error.message).toMatch(/line break/)
    expect(leaks(await printed(error))).toEqual([])
    expect(hits).toHaveLength(0)
  })

  it("an auth callback's error naming a Bearer token reaches the AUTH message redacted", async () => {
    const { url, hits } = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(emptyPage))
    const error = await rejection(
      search(url, {
        auth: {
          headers: () => {
            throw new Error(`token refresh failed: Bearer ${SECRETS[3]} is expired`)
          },
        },
      }),
    )
    expect(error.code).toBe('AUTH')
    expect(error.message).toContain('token refresh failed: Bearer *** is expired')
    expect(leaks(await printed(error))).toEqual([])
    expect(hits).toHaveLength(0)
  })
})
