import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Observable, filter, first, take } from 'rxjs'
import { FakeWebSocket, PingingFakeWebSocket } from '../../test/FakeWebSocket.js'
import { record } from '@solver-notifications/test-support'
import { fakeClient, statusesOf, errorsOf } from '../../test/fakeClient.js'
import type { NotificationsClientOptions } from '../stream/clientOptions.js'
import type { SocketStatus } from './TransportEvent.js'

// Defects of the transport found by a hostile server and a careless app, each pinned here.

const account = '0xAbC0000000000000000000000000000000000001'
const other = '0xAbC0000000000000000000000000000000000002'
const client = (options: Partial<NotificationsClientOptions> = {}) => fakeClient({ lingerMs: 0, ...options })
const statuses = statusesOf
const errors = errorsOf
const liveSockets = () => FakeWebSocket.instances.filter((ws) => ws.closed === undefined && !ws.terminated)

beforeEach(() => {
  vi.useFakeTimers()
  FakeWebSocket.reset()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('terminal states are terminal: nothing dials, sends or arms a timer after release or close', () => {
  it.each(['enigma', 'hub'] as const)('%s: unsubscribing (lingerMs 0) from the status callback as a retry starts connecting', (solverId) => {
    const c = client()
    let retries = 0
    const sub = c.events({ account, solverId }).subscribe((event) => {
      if (event.type === 'status' && event.status === 'connecting' && event.attempt > 0) {
        retries++
        sub.unsubscribe()
      }
    })
    FakeWebSocket.last().drop(1006)
    vi.runOnlyPendingTimers()
    expect(retries).toBe(1)
    expect(FakeWebSocket.instances).toHaveLength(1)
    expect(liveSockets()).toHaveLength(0)
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(1)
  })

  it.each(['enigma', 'hub'] as const)('%s: client.close() from the status callback as a retry starts connecting', (solverId) => {
    const c = client({ lingerMs: 2000 })
    const events = record(c.events({ account, solverId }))
    c.events({ account, solverId }).subscribe((event) => {
      if (event.type === 'status' && event.status === 'connecting' && event.attempt > 0) c.close()
    })
    FakeWebSocket.last().open()
    FakeWebSocket.last().drop(1006)
    vi.runOnlyPendingTimers()
    expect(statuses(events.values).at(-1)?.status).toBe('closed')
    expect(events.completed).toBe(true)
    expect(FakeWebSocket.instances).toHaveLength(1)
    expect(liveSockets()).toHaveLength(0)
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(1)
  })

  it.each([
    ['take(2) of connecting', (o: Observable<SocketStatus>) => o.pipe(filter((s) => s === 'connecting'), take(2))],
    ['first() of a retry', (o: Observable<SocketStatus>) => o.pipe(first((s, i) => i > 0 && s === 'connecting'))],
  ] as const)('%s on status() leaves no socket, no subscribe frame and no timer', (_name, operator) => {
    for (const solverId of ['enigma', 'hub'] as const) {
      FakeWebSocket.reset()
      const c = client()
      const seen: string[] = []
      operator(c.status({ account, solverId })).subscribe((s) => seen.push(s))
      FakeWebSocket.last().drop(1006)
      vi.runOnlyPendingTimers()
      expect(seen.at(-1)).toBe('connecting')
      expect(liveSockets()).toHaveLength(0)
      for (const ws of FakeWebSocket.instances) ws.open()
      expect(FakeWebSocket.instances.flatMap((ws) => ws.sent)).toEqual([])
      expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
      c.close()
    }
  })

  it('after client.close() nothing dials: a socket abandoned mid-dial that opens late is ignored', () => {
    const c = client()
    record(c.events({ account }))
    const ws = FakeWebSocket.last()
    c.close()
    ws.open()
    expect(ws.sent).toEqual([])
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(1)
  })
})

describe('routing', () => {
  it('a rasa frame without counterparty_address is unrouted, even with one account on the hub', () => {
    const c = client()
    const notes = record(c.notifications({ account }))
    FakeWebSocket.last().open()
    FakeWebSocket.last().message(JSON.stringify({ quote_id: 1, action_status: 'success' }))
    FakeWebSocket.last().message(JSON.stringify({ quote_id: 2, counterparty_address: null }))
    expect(notes.values).toEqual([])
    expect(c.stats().frames).toMatchObject({ received: 2, delivered: 0, dropped: { unrouted: 2 } })
    c.close()
  })

  it('enigma: an envelope address written 0X… comes out as 0x…', () => {
    const c = client()
    const notes = record(c.notifications({ account, solverId: 'enigma' }))
    FakeWebSocket.last().open()
    FakeWebSocket.last().message(JSON.stringify({ app_name: 'C', address: `0X${account.slice(2)}`, data: { quote_id: 5 } }))
    expect(notes.values.map((n) => n.account)).toEqual([account])
    c.close()
  })
})

describe('dead sockets and close codes', () => {
  it('a socket declared dead by the heartbeat is terminated, not closed politely', () => {
    const c = client({ WebSocket: PingingFakeWebSocket, heartbeat: { intervalMs: 1000, timeoutMs: 500 } })
    record(c.events({ account }))
    const ws = FakeWebSocket.last() as PingingFakeWebSocket
    ws.open()
    vi.advanceTimersByTime(1500)
    expect(ws.terminated).toBe(true)
    expect(ws.closed).toBeUndefined()
    c.close()
  })

  it('client.close() over a connecting socket terminates it', () => {
    const c = client({ WebSocket: PingingFakeWebSocket })
    record(c.events({ account }))
    c.close()
    expect((FakeWebSocket.last() as PingingFakeWebSocket).terminated).toBe(true)
  })

  it('close code 1003 is not retried by default: closed plus an error event saying why', () => {
    const c = client()
    const events = record(c.events({ account }))
    FakeWebSocket.last().open()
    FakeWebSocket.last().drop(1003, 'go away')
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'closed', closeCode: 1003, closeReason: 'go away' })
    expect(errors(events.values)).toEqual([expect.objectContaining({ code: 'SOCKET', message: expect.stringContaining('1003') })])
    expect(errors(events.values)[0]!.message).toMatch(/not retried.*shouldRetry/)
    expect(events.completed).toBe(true)
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(1)
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  })

  it.each([1008, 4001, 4003])('close code %i (credentials) re-dials once at once; refused again, closed with UNAUTHORIZED: 2 dials, no backoff loop', (code) => {
    const c = client()
    const events = record(c.events({ account }))
    FakeWebSocket.last().open()
    FakeWebSocket.last().drop(code, 'token expired')
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'reconnecting', retryInMs: 0, closeCode: code })
    vi.advanceTimersByTime(0)
    expect(FakeWebSocket.instances).toHaveLength(2)
    FakeWebSocket.last().drop(code, 'token expired')
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'closed', closeCode: code })
    expect(errors(events.values).map((e) => e.code)).toEqual(['UNAUTHORIZED'])
    expect(events.completed).toBe(true)
    vi.runAllTimers()
    expect(FakeWebSocket.instances).toHaveLength(2)
    expect(c.stats()).toMatchObject({ sockets: 0, subscriptions: 0, timers: 0 })
  })

  it('a credentials close after the socket stayed open resetAfterMs costs one re-dial again (a token expiring hours later)', () => {
    const c = client()
    const events = record(c.events({ account }))
    FakeWebSocket.last().open()
    FakeWebSocket.last().drop(4001)
    vi.advanceTimersByTime(0)
    FakeWebSocket.last().open()
    vi.advanceTimersByTime(5_000)
    FakeWebSocket.last().drop(4001)
    vi.advanceTimersByTime(0)
    FakeWebSocket.last().open()
    expect(statuses(events.values).at(-1)?.status).toBe('open')
    expect(errors(events.values)).toEqual([])
    expect(FakeWebSocket.instances).toHaveLength(3)
    c.close()
  })

  it('reconnect.shouldRetry decides per close', () => {
    const shouldRetry = vi.fn((close: { code: number; reason: string }) => close.code !== 4000)
    const c = client({ reconnect: { shouldRetry } })
    const events = record(c.events({ account }))
    FakeWebSocket.last().drop(1011, 'server error')
    expect(statuses(events.values).at(-1)?.status).toBe('reconnecting')
    vi.runOnlyPendingTimers()
    FakeWebSocket.last().drop(4000, 'banned')
    expect(shouldRetry.mock.calls.map(([close]) => close)).toEqual([
      { code: 1011, reason: 'server error' },
      { code: 4000, reason: 'banned' },
    ])
    expect(statuses(events.values).at(-1)).toMatchObject({ status: 'closed', closeCode: 4000 })
  })

  it('a refused close ends only the streams of that socket', () => {
    const c = client()
    const hub = record(c.events({ account }))
    const enigma = record(c.events({ account, solverId: 'enigma' }))
    const enigmaSocket = FakeWebSocket.instances.find((ws) => ws.url === 'wss://e.example/ws')!
    enigmaSocket.open()
    enigmaSocket.drop(1003)
    expect(enigma.completed).toBe(true)
    expect(hub.completed).toBe(false)
    c.close()
  })

  it('a rasa hub closed with 1009 right after its subscribe frame reports a too-large list and backs off', () => {
    const c = client()
    const events = record(c.events({ account }))
    record(c.events({ account: other }))
    for (let attempt = 1; attempt <= 3; attempt++) {
      FakeWebSocket.last().open()
      FakeWebSocket.last().drop(1009, 'message too big')
      const last = statuses(events.values).at(-1)!
      expect(last).toMatchObject({ status: 'reconnecting', attempt, closeCode: 1009 })
      expect(last.retryInMs).toBe(500 * 2 ** (attempt - 1))
      vi.advanceTimersByTime(last.retryInMs!)
    }
    const reported = errors(events.values)
    expect(reported).toHaveLength(3)
    expect(reported[0]).toMatchObject({ code: 'SOCKET', message: expect.stringMatching(/2 addresses.*too large.*maxAccountsPerHub/) })
    c.close()
  })
})

describe('maxAccountsPerHub and the dial gate', () => {
  const acct = (i: number) => `0x${(i + 1).toString(16).padStart(40, '0')}` as `0x${string}`

  it('a rasa endpoint opens another hub beyond maxAccountsPerHub, each hub with its own share of the list', async () => {
    const c = client({ maxAccountsPerHub: 2, lingerMs: 1000 })
    const subs = [0, 1, 2, 3, 4].map((i) => c.notifications({ account: acct(i) }).subscribe())
    expect(FakeWebSocket.instances).toHaveLength(3)
    for (const ws of FakeWebSocket.instances) ws.open()
    expect(FakeWebSocket.instances.map((ws) => JSON.parse(ws.sent[0]!).address)).toEqual([[acct(0), acct(1)], [acct(2), acct(3)], [acct(4)]])
    // a second subscriber of an account joins the hub that already has it
    subs.push(c.notifications({ account: acct(3).toUpperCase().replace('0X', '0x') as `0x${string}` }).subscribe())
    await Promise.resolve()
    expect(FakeWebSocket.instances.map((ws) => ws.sent.length)).toEqual([1, 1, 1])
    // a freed slot (after linger) takes the next new account
    subs[1]!.unsubscribe()
    vi.advanceTimersByTime(1000)
    await Promise.resolve()
    expect(JSON.parse(FakeWebSocket.instances[0]!.sent.at(-1)!).address).toEqual([acct(0)])
    subs.push(c.notifications({ account: acct(5) }).subscribe())
    await Promise.resolve()
    expect(FakeWebSocket.instances).toHaveLength(3)
    expect(c.stats().sockets).toBe(3)
    c.close()
  })

  it('no more than maxConcurrentDials dials are in flight; the rest wait their turn in order', () => {
    const c = client({ maxConcurrentDials: 2 })
    const events = [0, 1, 2, 3].map((i) => record(c.status({ account: acct(i), solverId: 'enigma' })))
    expect(FakeWebSocket.instances.map((ws) => ws.url)).toHaveLength(2)
    expect(events.map((e) => e.values)).toEqual([['connecting'], ['connecting'], ['connecting'], ['connecting']])
    FakeWebSocket.instances[0]!.open()
    expect(FakeWebSocket.instances).toHaveLength(3)
    FakeWebSocket.instances[1]!.drop(1006) // a failed dial frees its slot too
    expect(FakeWebSocket.instances).toHaveLength(4)
    expect(JSON.parse(FakeWebSocket.instances[2]!.sent[0] ?? '{"channel_patterns":[{"address":"none"}]}').channel_patterns[0].address).toBe('none')
    FakeWebSocket.instances[2]!.open()
    expect(JSON.parse(FakeWebSocket.instances[2]!.sent[0]!).channel_patterns[0].address).toBe(acct(2))
    // a waiting dial released before its turn never dials
    const late = c.status({ account: acct(9), solverId: 'enigma' }).subscribe()
    late.unsubscribe()
    FakeWebSocket.instances[3]!.open()
    vi.runOnlyPendingTimers()
    expect(FakeWebSocket.instances.filter((ws) => ws.sent.some((s) => s.includes(acct(9))))).toEqual([])
    c.close()
  })
})
