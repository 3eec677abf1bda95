import { renderHook, waitFor } from '@testing-library/react'
import { type EnigmaSearchResult, type RasaSearchResult, type ServiceError, ServiceRequestError } from '@solver-notifications/core'
import { afterEach, beforeEach, expect, expectTypeOf, it, vi } from 'vitest'
import { type Harness, startHarness } from '../test/harness.js'
import { useNotifications } from './useNotifications.js'
import { Suspense } from 'react'
import { useInfiniteSearchNotifications } from './useInfiniteSearchNotifications.js'
import { useSearchNotifications } from './useSearchNotifications.js'
import { useSuspenseSearchNotifications } from './useSuspenseSearchNotifications.js'

const A = '0xAbC0000000000000000000000000000000000001'
let h: Harness
beforeEach(async () => {
  h = await startHarness({ memory: false })
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
  // error is a ServiceError; a failed request is a ServiceRequestError with its status
  expectTypeOf(result.current.error).toEqualTypeOf<ServiceError | null>()
  const error = result.current.error
  expect(error instanceof ServiceRequestError && [error.code, error.status]).toEqual(['HTTP_STATUS', 400])
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

it('select may change the data type; an unknown solver is the query error, not a throw during render', async () => {
  const open = await h.rasa.instantOpen(A)
  const { result } = renderHook(() => useSearchNotifications({ solverId: 'beta', account: A, query: { select: (page) => page.rows.map((r) => r.quote_id) } }), { wrapper: h.wrapper })
  await waitFor(() => expect(result.current.isSuccess).toBe(true))
  expectTypeOf(result.current.data).toEqualTypeOf<Array<number | null | undefined> | undefined>()
  expect(result.current.data).toEqual([open.quoteId])
  const unknown = renderHook(() => useSearchNotifications({ solverId: 'nope' as never, query: { enabled: false } }), { wrapper: h.wrapper })
  expect(unknown.result.current.fetchStatus).toBe('idle')
  const failing = renderHook(() => useSearchNotifications({ solverId: 'nope' as never }), { wrapper: h.wrapper })
  await waitFor(() => expect(failing.result.current.isError).toBe(true))
  expect(failing.result.current.error?.code).toBe('UNKNOWN_SOLVER')
})

it('useInfiniteSearchNotifications pages by start/size until the count', async () => {
  for (let i = 0; i < 3; i++) await h.rasa.instantOpen(A)
  const { result } = renderHook(() => useInfiniteSearchNotifications({ solverId: 'beta', account: A, size: 2 }), { wrapper: h.wrapper })
  await waitFor(() => expect(result.current.isSuccess).toBe(true))
  expectTypeOf(result.current.data?.pages).toEqualTypeOf<RasaSearchResult[] | undefined>()
  expect(result.current.hasNextPage).toBe(true)
  await result.current.fetchNextPage()
  await waitFor(() => expect(result.current.data?.pages).toHaveLength(2))
  expect(result.current.data!.pages.map((p) => p.rows.length)).toEqual([2, 1])
  expect(result.current.hasNextPage).toBe(false)
  expect(h.rasa.httpRequests().map((r) => r.url)).toEqual(['/position-state/0/2', '/position-state/2/2'])
})

it('useSuspenseSearchNotifications suspends, then data is always there', async () => {
  const open = await h.rasa.instantOpen(A)
  const { result } = renderHook(() => useSuspenseSearchNotifications({ solverId: 'beta', account: A }), {
    wrapper: ({ children }) => <h.wrapper><Suspense fallback={null}>{children}</Suspense></h.wrapper>,
  })
  await waitFor(() => expect(result.current?.data).toBeDefined())
  expectTypeOf(result.current.data).toEqualTypeOf<RasaSearchResult>()
  expect(result.current.data.rows.map((r) => r.quote_id)).toEqual([open.quoteId])
})
