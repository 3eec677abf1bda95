import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { record } from '@solver-notifications/test-support'
import { createConfig } from '../config/createConfig.js'
import { isServiceError } from '../errors/ServiceError.js'
import { type NotificationsClient, createNotificationsClient } from './createNotificationsClient.js'

// An enigma solver configured without searchUrl: what needs history fails at once, live streams work.

const A = '0xAbC0000000000000000000000000000000000001' as const
let sim: SolverSimulator
let client: NotificationsClient
beforeEach(async () => {
  sim = await startSolverSimulator({ protocol: 'enigma' })
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'e', solvers: { e: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel } } } } } })
  client = createNotificationsClient({ config, lingerMs: 0, reconnect: { baseDelayMs: 10, maxDelayMs: 20 } })
})
afterEach(async () => {
  client.close()
  await sim.close()
})

it('a resume stream emits SEARCH_URL_NOT_CONFIGURED, then closed, and ends: no socket, no retry', async () => {
  const events = record(client.events({ account: A }, { resume: true }))
  await events.complete()
  expect(events.values.map((e) => (e.type === 'error' ? `error ${e.error.code}` : e.type === 'status' ? `status ${e.status}` : e.type))).toEqual(['error SEARCH_URL_NOT_CONFIGURED', 'status closed'])
  const [first] = events.values
  expect(first?.type === 'error' && first.error.message).toContain('searchUrl')
  expect(client.stats()).toMatchObject({ sockets: 0, subscriptions: 0 })
  expect(sim.connections()).toHaveLength(0)
})

it('a quote book says SEARCH_URL_NOT_CONFIGURED at once, closed, with no flicker, and completes', async () => {
  const books = record(client.quotes({ account: A }))
  await books.complete()
  const last = books.values.at(-1)!
  expect(last).toMatchObject({ ready: false, status: 'closed' })
  expect(last.error?.code).toBe('SEARCH_URL_NOT_CONFIGURED')
  // once set, the error stays: no set/cleared flicker
  const firstWithError = books.values.findIndex((b) => b.error !== null)
  expect(books.values.slice(firstWithError).every((b) => b.error?.code === 'SEARCH_URL_NOT_CONFIGURED')).toBe(true)
})

it('waitFor rejects at once with SEARCH_URL_NOT_CONFIGURED, not after its timeout', async () => {
  const started = Date.now()
  const failure = await client.waitFor({ account: A, quoteId: 7 }, { until: 'closed', timeoutMs: 60_000 }).catch((e: unknown) => e)
  expect(isServiceError(failure) && failure.code).toBe('SEARCH_URL_NOT_CONFIGURED')
  expect(Date.now() - started).toBeLessThan(30_000) // far below the timeout; not a speed assertion
  expect(client.stats().timers).toBe(0)
})

it('live streams without resume work without searchUrl', async () => {
  const notes = record(client.notifications({ account: A }))
  await sim.waitForSubscribers(A)
  await sim.publish({ id: 'live-only', quote_id: 3, modify_time: sim.tick(), counterparty_address: A, action_status: 'success', last_seen_action: 'InstantRFQ' })
  await notes.count(1)
  expect(notes.values.map((n) => n.id)).toEqual(['live-only'])
})
