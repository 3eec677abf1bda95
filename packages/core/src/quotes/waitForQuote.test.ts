import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { FakeWebSocket } from '../../test/FakeWebSocket.js'
import { fakeClient } from '../../test/fakeClient.js'
import { setLongTimeout } from '../utils/setLongTimeout.js'

const account = '0xAbC0000000000000000000000000000000000001'

beforeEach(() => {
  vi.useFakeTimers()
  FakeWebSocket.reset()
})
afterEach(() => {
  vi.useRealTimers()
})

it('a timeoutMs above 2^31−1 ms is honoured (chained), not fired after 1 ms', async () => {
  const client = fakeClient({ lingerMs: 0 })
  let outcome: unknown
  client.waitFor({ account, quoteId: 7, solverId: 'enigma' }, { until: 'closed', timeoutMs: 3e9 }).then(
    () => (outcome = 'resolved'),
    (error: { code: string }) => (outcome = error.code),
  )
  // A plain setTimeout(3e9) fires after 1 ms. (The chase keeps asking this fake solver's missing
  // history meanwhile, so the full 3e9 ms is proven on setLongTimeout itself.)
  await vi.advanceTimersByTimeAsync(1_000)
  expect(outcome).toBeUndefined()
  client.close()
})

it('setLongTimeout chains timers above 2^31−1 ms and fires exactly once at the end', () => {
  const fired: number[] = []
  const t0 = Date.now()
  setLongTimeout(() => fired.push(Date.now() - t0), 3e9)
  vi.advanceTimersByTime(2 ** 31)
  expect(fired).toEqual([])
  vi.advanceTimersByTime(3e9)
  expect(fired).toEqual([3e9])
  const cancel = setLongTimeout(() => fired.push(-1), 5e9)
  vi.advanceTimersByTime(2 ** 31 + 5)
  cancel()
  vi.advanceTimersByTime(5e9)
  expect(fired).toEqual([3e9])
})

it('its deadline and chase are the client’s timers: counted in stats().timers while it waits, none left after', async () => {
  const client = fakeClient({ lingerMs: 0 })
  const controller = new AbortController()
  const waiting = client.waitFor({ account, quoteId: 7, solverId: 'enigma' }, { until: 'closed', signal: controller.signal }).catch((e: { code: string }) => e.code)
  // the deadline, and the first chase (armed until the socket opens), once its code has loaded
  await expect.poll(() => client.stats().timers).toBeGreaterThanOrEqual(2)
  controller.abort()
  expect(await waiting).toBe('ABORTED')
  expect(client.stats()).toMatchObject({ subscriptions: 0, timers: 0 })
  client.close()
})
