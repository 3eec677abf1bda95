import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, describe, expect, it } from 'vitest'
import { record } from '@solver-notifications/test-support'
import type { AuthOptions } from '../config/auth.js'
import { createConfig } from '../config/createConfig.js'
import type { ServiceError } from '../errors/ServiceError.js'
import type { NotificationEvent } from '../stream/NotificationEvent.js'
import { type NotificationsClient, createNotificationsClient } from './createNotificationsClient.js'

// Credentials and headers against the real simulator (tokens on history requests and socket URLs).

const A = '0xAbC0000000000000000000000000000000000001' as const
let sims: SolverSimulator[] = []
let clients: NotificationsClient[] = []
afterEach(async () => {
  for (const c of clients) c.close()
  clients = []
  await Promise.all(sims.map((s) => s.close()))
  sims = []
})

async function setup(protocol: 'enigma' | 'rasa', token: string | undefined, auth: AuthOptions | undefined) {
  const sim = await startSolverSimulator({ protocol, ...(token ? { auth: { token } } : {}) })
  sims.push(sim)
  const headers = { 'App-Name': 'my-app' }
  const config = createConfig({
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 's',
        solvers: {
          s: {
            url: sim.httpUrl,
            headers,
            notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl },
          },
        },
      },
    },
  })
  const client = createNotificationsClient({ config, auth, lingerMs: 0, reconnect: { baseDelayMs: 20, maxDelayMs: 40 }, search: { retries: 2, timeoutMs: 2_000 } })
  clients.push(client)
  return { sim, client }
}

const notes = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'notification' ? [e.notification] : []))
const errors = (events: NotificationEvent[]) => events.flatMap((e) => (e.type === 'error' ? [e.error as ServiceError] : []))
const finishedCount = (events: NotificationEvent[]) => events.filter((e) => e.type === 'status' && e.backfill?.state === 'finished').length
const upgrades = (sim: SolverSimulator) => sim.requestHeaders().filter((h) => h.upgrade === 'websocket')

/** A token source the test rotates, as an app's token refresh would. */
function tokens(first: string) {
  let current = first
  const auth: AuthOptions = {
    headers: () => ({ authorization: `Bearer ${current}` }),
    socketUrl: async ({ url }) => `${url}?token=${current}`,
  }
  return { auth, set: (next: string) => (current = next) }
}

describe.each(['enigma', 'rasa'] as const)('%s', (protocol) => {
  it('the config’s App-Name header reaches every history request and the socket upgrade', async () => {
    const { sim, client } = await setup(protocol, undefined, undefined)
    const events = record(client.events({ account: A }))
    await sim.waitForSubscribers(A)
    await client.search({ account: A })
    expect(events.values.length).toBeGreaterThan(0)
    const seen = sim.requestHeaders()
    expect(seen.length).toBeGreaterThanOrEqual(2)
    for (const h of seen) expect(h['app-name']).toBe('my-app')
  })

  it('a token rotated mid-stream (4001 "token expired") costs one re-dial; the resume stream backfills what was published meanwhile: nothing lost', async () => {
    const token = tokens('t1')
    const { sim, client } = await setup(protocol, 't1', token.auth)
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finishedCount(v) === 1) // the first open's backfill (from subscribing)
    const before = await sim.instantOpen(A)
    await events.until((v) => notes(v).length === 3)
    token.set('t2')
    await sim.rotateToken('t2')
    const missed = await sim.instantOpen(A) // published while the client holds no socket
    await events.until((v) => finishedCount(v) === 2)
    const ids = notes(events.values).map((n) => n.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toContain(before.frames[2]!.id)
    expect(ids).toContain(missed.frames[2]!.id)
    expect(errors(events.values)).toEqual([])
    expect(upgrades(sim)).toHaveLength(2)
    expect(events.values.filter((e) => e.type === 'status' && e.status === 'reconnecting')).toEqual([expect.objectContaining({ closeCode: 4001, retryInMs: 0 })])
  })

  it('a wrong token ends the stream closed with UNAUTHORIZED after at most 2 dials; search is UNAUTHORIZED at once, not retried', async () => {
    const { sim, client } = await setup(protocol, 'right', tokens('Wr0ngT0ken').auth)
    const events = record(client.events({ account: A }))
    await events.until(() => events.completed)
    expect(errors(events.values).map((e) => e.code)).toEqual(['UNAUTHORIZED'])
    expect(events.values.filter((e) => e.type === 'status').at(-1)).toMatchObject({ status: 'closed' })
    expect(upgrades(sim).length).toBeLessThanOrEqual(2)
    const before = sim.httpRequests().length
    const error = await client.search({ account: A }).catch((e: ServiceError & { status?: number }) => e)
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 })
    expect(sim.httpRequests().length - before).toBe(1)
    expect(JSON.stringify([events.values, (error as Error).message])).not.toContain('Wr0ngT0ken')
  })
})

describe.each(['enigma', 'rasa'] as const)('%s: rotation loses nothing', (protocol) => {
  it('two rotations 1 s apart (less than resetAfterMs): each opens with the new token, so each is a new episode; the stream stays open', async () => {
    const token = tokens('t1')
    const { sim, client } = await setup(protocol, 't1', token.auth)
    const events = record(client.events({ account: A }, { resume: true }))
    await sim.waitForSubscribers(A)
    await events.until((v) => finishedCount(v) === 1) // the first open's backfill (from subscribing)
    for (const next of ['t2', 't3']) {
      const opens = events.values.filter((e) => e.type === 'status' && e.status === 'open').length
      token.set(next)
      await sim.rotateToken(next)
      await events.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open').length === opens + 1)
    }
    await sim.waitForSubscribers(A)
    const last = await sim.instantOpen(A)
    await events.until((v) => notes(v).some((n) => n.id === last.frames[2]!.id))
    expect(events.values.some((e) => e.type === 'status' && e.status === 'closed')).toBe(false)
    expect(errors(events.values).map((e) => e.code)).toEqual([])
  })

  it('a rotation storm (every 50 ms for 2 s) with 30 resume streams: every stream ends open and every quote is delivered once', async () => {
    const token = tokens('s0')
    const { sim, client } = await setup(protocol, 's0', token.auth)
    const accounts = Array.from({ length: 30 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as const)
    const streams = accounts.map((account) => record(client.events({ account }, { resume: true })))
    for (const account of accounts) await sim.waitForSubscribers(account)
    const published: string[][] = accounts.map(() => [])
    let n = 0
    const storm = (async () => {
      for (let i = 1; i <= 40; i++) {
        token.set(`s${i}`)
        await sim.rotateToken(`s${i}`)
        await new Promise((r) => setTimeout(r, 50)) // storm pacing, not synchronisation
      }
    })()
    const publishing = (async () => {
      for (let round = 0; round < 4; round++) {
        for (const [i, account] of accounts.entries()) {
          const id = `storm-${n++}`
          published[i]!.push(id)
          await sim.publish({ id, quote_id: n, temp_quote_id: -n, modify_time: sim.tick(), counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' })
        }
        await new Promise((r) => setTimeout(r, 100)) // pacing
      }
    })()
    await Promise.all([storm, publishing])
    for (const [i, stream] of streams.entries()) {
      await stream.until((v) => published[i]!.every((id) => notes(v).some((x) => x.id === id)))
      const ids = notes(stream.values).map((x) => x.id)
      expect(new Set(ids).size).toBe(ids.length)
      expect(stream.values.some((e) => e.type === 'status' && e.status === 'closed')).toBe(false)
      // a dial that raced a rotation backs off and comes back: every stream ends open
      await stream.until((v) => v.filter((e) => e.type === 'status' && !e.backfill).at(-1)?.type === 'status' && (v.filter((e) => e.type === 'status' && !e.backfill).at(-1) as { status: string }).status === 'open')
    }
    expect(client.stats().socketStatus.open).toBe(protocol === 'rasa' ? 1 : 30)
  }, 60_000)
})

it('an auth.socketUrl that never settles holds no dial slot: another solver opens at once, and the hung callback gets connectTimeoutMs (AUTH) from its call', async () => {
  const enigma = await startSolverSimulator({ protocol: 'enigma' })
  const rasa = await startSolverSimulator({ protocol: 'rasa' })
  sims.push(enigma, rasa)
  const config = createConfig({
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 'hung',
        solvers: {
          hung: { notifications: { protocol: 'enigma', url: enigma.wsUrl, channel: enigma.channel, searchUrl: enigma.searchUrl } },
          fine: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } },
        },
      },
    },
  })
  let asked = 0
  const client = createNotificationsClient({
    config,
    connectTimeoutMs: 1_500,
    maxConcurrentDials: 64,
    reconnect: { baseDelayMs: 1_000, maxDelayMs: 2_000 },
    auth: {
      socketUrl: ({ solverId, url }) => {
        if (solverId !== 'hung') return url
        asked++
        return new Promise<string>(() => {})
      },
    },
  })
  clients.push(client)
  // 64 enigma sockets whose URL never comes: as many as there are dial slots.
  const hung = Array.from({ length: 64 }, (_, i) => record(client.events({ account: `0x${(i + 1).toString(16).padStart(40, '0')}` as const })))
  const fine = record(client.events({ account: A, solverId: 'fine' }))
  await fine.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  // It opened while every hung callback was still thinking: none had to time out to free a slot.
  expect(hung.flatMap((h) => errors(h.values))).toEqual([])
  expect(asked).toBe(64)
  await hung[0]!.until((v) => v.some((e) => e.type === 'error'))
  const [error] = errors(hung[0]!.values)
  expect(error).toMatchObject({ code: 'AUTH', message: expect.stringContaining('no answer within connectTimeoutMs (1500 ms)') })
  await hung[63]!.until((v) => v.some((e) => e.type === 'status' && e.status === 'reconnecting'))
})

it('an auth.headers that never settles gets the request deadline: the search rejects with AUTH, nothing is sent', async () => {
  const { sim, client } = await setup('rasa', undefined, { headers: () => new Promise<Record<string, string>>(() => {}) })
  const error = await client.search({ account: A }, {}).catch((e: ServiceError) => e)
  expect(error).toMatchObject({ code: 'AUTH', message: expect.stringContaining('did not answer within the request deadline') })
  expect(sim.httpRequests()).toHaveLength(0)
})

it('a throwing auth callback is AUTH: a rejected search, an error event and a retried dial — never an unhandled rejection', async () => {
  let fail = true
  const auth: AuthOptions = {
    headers: () => {
      throw new Error('token store locked')
    },
    socketUrl: async ({ url }) => {
      if (fail) throw new Error('token store locked')
      return `${url}?token=t`
    },
  }
  const { sim, client } = await setup('rasa', 't', auth)
  await expect(client.search({ account: A })).rejects.toMatchObject({ code: 'AUTH', message: expect.stringContaining('token store locked') })
  expect(sim.httpRequests()).toHaveLength(0)
  const events = record(client.events({ account: A }))
  await events.until((v) => errors(v).some((e) => e.code === 'AUTH'))
  fail = false
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  await sim.waitForSubscribers(A)
})
