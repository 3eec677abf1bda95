import { renderHook, waitFor } from '@testing-library/react'
import type { EnigmaSearchResult, RasaSearchResult } from '@solver-notifications/core'
import { afterEach, beforeEach, expect, expectTypeOf, it, vi } from 'vitest'
import { type Harness, startHarness } from './testing.js'
import { useNotifications } from './useNotifications.js'
import { useSearchNotifications } from './useSearchNotifications.js'

const A = '0xAbC0000000000000000000000000000000000001'
let h: Harness
beforeEach(async () => {
  h = await startHarness()
})
afterEach(() => h.stop())

it('searches through TanStack Query; data narrows on kind', async () => {
  const open = await h.rasa.instantOpen(A)
  const { result } = renderHook(() => useSearchNotifications({ solverId: 'beta', account: A }), { wrapper: h.wrapper })
  await waitFor(() => expect(result.current.isSuccess).toBe(true))
  // The registered config (testing.tsx) types the result by solverId: no narrowing needed.
  expectTypeOf(result.current.data).toEqualTypeOf<RasaSearchResult | undefined>()
  const data = result.current.data!
  expect(data.kind).toBe('rasa')
  expect(data.rows.map((r) => r.quote_id)).toEqual([open.quoteId])
  expect(h.rasa.httpRequests()).toHaveLength(1)
})

it('failed searches are ServiceRequestErrors in error; query overrides reach TanStack', async () => {
  // happy-dom's fetch logs failed requests to the console, as a browser's devtools would: expected here.
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  h.enigma.injectHttpFault({ status: 400, body: { error: 'bad' } })
  const { result } = renderHook(() => useSearchNotifications({ solverId: 'alpha', account: A }), { wrapper: h.wrapper })
  expectTypeOf(result.current.data).toEqualTypeOf<EnigmaSearchResult | undefined>()
  await waitFor(() => expect(result.current.isError).toBe(true))
  expect([result.current.error?.code, result.current.error?.status]).toEqual(['HTTP_STATUS', 400])
  const disabled = renderHook(() => useSearchNotifications({ solverId: 'alpha', query: { enabled: false } }), { wrapper: h.wrapper })
  expect(disabled.result.current.fetchStatus).toBe('idle')
  expect(h.enigma.httpRequests()).toHaveLength(1)
  expect(logged.mock.calls.map(([line]) => String(line))).toEqual([expect.stringMatching(/^POST .*\/api\/v1\/search 400 \(Bad Request\)$/)])
  logged.mockRestore()
})

it('rejects solver ids the registered config does not have (type-level)', () => {
  const typeOnly = () => {
    // @ts-expect-error 'gamma' is not a configured solver id
    useSearchNotifications({ solverId: 'gamma' })
    // @ts-expect-error nor in the live stream's options
    useNotifications({ account: A, solverId: 'gamma' })
  }
  expect(typeof typeOnly).toBe('function')
})
