import { expect, it } from 'vitest'
import { createConfig } from '../config/createConfig.js'
import { createNotificationsClient } from './createNotificationsClient.js'

// Every timing option is checked when the client is made: a deadline beyond what a timer can hold (2^31 − 1
// ms), Infinity, 0, a negative number or NaN is INVALID_CONFIG naming the option, never a client whose every
// history read then fails (ky's RangeError) or whose waits fire at once.

const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'a', solvers: { a: { url: 'http://127.0.0.1:9', notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:9/ws' } } } } } })
const refused = (options: Record<string, unknown>) => {
  try {
    createNotificationsClient({ config, lifecycle: false, ...options } as never).close()
  } catch (error) {
    return error as { code: string; message: string }
  }
  return undefined
}

it.each([2 ** 31, 1e10, Number.POSITIVE_INFINITY, 0, -1, Number.NaN])('search.timeoutMs %s: INVALID_CONFIG naming it', (timeoutMs) => {
  const error = refused({ search: { timeoutMs } })
  expect(error?.code).toBe('INVALID_CONFIG')
  expect(error?.message).toMatch(/search\.timeoutMs: expected a number from 1 to 2147483647/)
})

it.each([
  ['reconnect.baseDelayMs', { reconnect: { baseDelayMs: 2 ** 31 } }],
  ['reconnect.maxDelayMs', { reconnect: { maxDelayMs: 1e10 } }],
  ['reconnect.resetAfterMs', { reconnect: { resetAfterMs: Number.POSITIVE_INFINITY } }],
  ['connectTimeoutMs', { connectTimeoutMs: 2 ** 31 }],
  ['heartbeat.intervalMs', { heartbeat: { intervalMs: 1e12 } }],
  ['heartbeat.timeoutMs', { heartbeat: { timeoutMs: Number.NaN } }],
  ['lingerMs', { lingerMs: 2 ** 32 }],
  ['search.retries', { search: { retries: -1 } }],
])('%s out of range: INVALID_CONFIG naming it', (path, options) => {
  const error = refused(options)
  expect(error?.code).toBe('INVALID_CONFIG')
  expect(error?.message).toContain(`${path}: expected`)
})

it('every problem at once, and good values pass', () => {
  const error = refused({ search: { timeoutMs: 0 }, lingerMs: 1e10 })
  expect(error?.message).toMatch(/lingerMs[\s\S]*search\.timeoutMs|search\.timeoutMs[\s\S]*lingerMs/)
  expect(refused({ search: { timeoutMs: 2 ** 31 - 1, retries: 0 }, lingerMs: 0, reconnect: { maxDelayMs: 60_000 } })).toBeUndefined()
})
