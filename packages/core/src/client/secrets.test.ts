import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import { afterEach, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { record } from '@solver-notifications/test-support'
import { createConfig } from '../config/createConfig.js'
import { createNotificationsClient } from './createNotificationsClient.js'

// No secret is ever printed: URL userinfo and query values are `***` in every message, event, error
// (with its cause, as Node prints it) and stats field.

const SECRET = 'S3CRET'
const account = '0xAbC0000000000000000000000000000000000001'
const closers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()))
})
const printed = (value: unknown) => `${inspect(value, { depth: 8 })}\n${JSON.stringify(value, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack, cause: inspect(v.cause, { depth: 8 }) } : v))}`

async function refusingSocketServer(code: number, reason = 'go away') {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise((resolve) => wss.once('listening', resolve))
  wss.on('connection', (ws) => ws.close(code, reason))
  closers.push(() => new Promise((resolve) => wss.close(() => resolve())))
  return (wss.address() as AddressInfo).port
}

async function httpServer(answer: (res: import('node:http').ServerResponse) => void) {
  const seen: Array<string | undefined> = []
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization)
    req.resume()
    req.on('end', () => answer(res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()))
  return { port: (server.address() as AddressInfo).port, seen }
}

it.each(['enigma', 'rasa'] as const)('%s: a socket URL with credentials and a token: refused (1008), then unreachable — no event, error, cause or stat shows them', async (protocol) => {
  const port = await refusingSocketServer(1008)
  const url = `ws://user:${SECRET}@127.0.0.1:${port}/ws?token=${SECRET}&app=x`
  const dead = `ws://user:${SECRET}@127.0.0.1:1/ws?token=${SECRET}`
  const solver = (u: string) => (protocol === 'enigma' ? { notifications: { protocol, url: u, channel: 'C' } } : { notifications: { protocol, url: u } })
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'a', solvers: { a: solver(url), b: solver(dead) } } } })
  const client = createNotificationsClient({ config, lingerMs: 0, reconnect: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 } })
  const refused = record(client.events({ account, solverId: 'a' }))
  const unreachable = record(client.events({ account, solverId: 'b' }))
  await refused.until(() => refused.completed)
  await unreachable.until(() => unreachable.completed)
  const everything = printed([refused.values, unreachable.values, client.stats()])
  expect(refused.values.some((e) => e.type === 'error' && e.error.message.includes(`ws://***@127.0.0.1:${port}/ws?token=***&app=***`))).toBe(true)
  expect(unreachable.values.filter((e) => e.type === 'error').length).toBeGreaterThan(0)
  expect(everything).not.toContain(SECRET)
  client.close()
})

it.each([
  ['HTTP 500', (res: import('node:http').ServerResponse) => res.writeHead(500).end('{"error":"boom"}'), 'HTTP_STATUS'],
  ['not JSON', (res: import('node:http').ServerResponse) => res.writeHead(200).end('<html>'), 'INVALID_RESPONSE'],
  ['never answers', (_res: import('node:http').ServerResponse) => {}, 'TIMEOUT'],
  ['wrong shape', (res: import('node:http').ServerResponse) => res.writeHead(200).end('{"count":"x"}'), 'INVALID_RESPONSE'],
] as const)('search against a URL with credentials and a token, %s: the error and its cause show neither; credentials go as HTTP Basic', async (_name, answer, code) => {
  const { port, seen } = await httpServer(answer)
  const base = `http://user:${SECRET}@127.0.0.1:${port}/api?token=${SECRET}`
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { url: base, notifications: { protocol: 'rasa', url: `ws://127.0.0.1:${port}/ws` } } } } } })
  const client = createNotificationsClient({ config, search: { timeoutMs: 300, retries: 0 } })
  const error = await client.search({ account }).catch((e: unknown) => e)
  expect(error).toMatchObject({ code })
  expect(printed(error)).not.toContain(SECRET)
  expect((error as { url: string }).url).toBe(`http://***@127.0.0.1:${port}/api/position-state/0/100?token=***`)
  expect(seen[0]).toBe(`Basic ${Buffer.from(`user:${SECRET}`).toString('base64')}`)
  client.close()
})

it('an invalid config names the path, never the secret', () => {
  let message = ''
  try {
    createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { notifications: { protocol: 'rasa', url: `ftp://u:${SECRET}@h.example/ws?token=${SECRET}` } } } } } })
  } catch (error) {
    message = printed(error)
  }
  expect(message).toContain('chains.1.solvers.r.notifications.url')
  expect(message).not.toContain(SECRET)
})

it('a relative auth.socketUrl (/ws?token=…, which browsers accept) never shows its token in an error, its cause or a stat', async () => {
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'a', solvers: { a: { notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:9/ws' } } } } } })
  const client = createNotificationsClient({ config, reconnect: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 }, auth: { socketUrl: () => `/ws?token=${SECRET}` } })
  const events = record(client.events({ account }))
  await events.until(() => events.completed)
  const errors = events.values.filter((e) => e.type === 'error')
  expect(errors.length).toBeGreaterThan(0)
  expect(printed([events.values, client.stats()])).not.toContain(SECRET)
  client.close()
})

it('an auth.socketUrl that throws with a credential in its message (token=… without any URL) never shows it in an error, its cause or a stat', async () => {
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'a', solvers: { a: { notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:9/ws' } } } } } })
  const client = createNotificationsClient({
    config,
    reconnect: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 1 },
    auth: {
      socketUrl: () => {
        throw new Error(`vault refused: token=${SECRET}-kv-7777&expires=0`)
      },
    },
  })
  const events = record(client.events({ account }))
  await events.until(() => events.completed)
  const auth = events.values.filter((e) => e.type === 'error' && e.error.code === 'AUTH')
  expect(auth.length).toBeGreaterThan(0)
  expect(printed([events.values, client.stats()])).not.toContain(SECRET)
  client.close()
})

it.each(['enigma', 'rasa'] as const)('%s: a close reason carrying a token, a Bearer value and a ?sig= is redacted in status events, diagnostics and the socket snapshot', async (protocol) => {
  const port = await refusingSocketServer(4000, `expired token=${SECRET} Bearer ${SECRET} https://x.example/p?sig=${SECRET}`)
  const url = `ws://127.0.0.1:${port}/ws`
  const notifications = protocol === 'enigma' ? { protocol, url, channel: 'C' } : { protocol, url }
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'a', solvers: { a: { notifications } } } } })
  const client = createNotificationsClient({ config, lingerMs: 0, reconnect: { baseDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 } })
  const seen: unknown[] = []
  const stop = client.diagnostics.subscribe((e) => seen.push(e))
  const events = record(client.events({ account }))
  await events.until(() => events.completed)
  const reasons = events.values.flatMap((e) => (e.type === 'status' && e.closeCode === 4000 ? [e.closeReason] : []))
  expect(reasons.length).toBeGreaterThan(0)
  for (const reason of reasons) expect(reason).toMatch(/^expired token=\*\*\* Bearer \*\*\* /)
  expect(printed([events.values, seen, client.stats()])).not.toContain(SECRET)
  stop()
  client.close()
})
