import { renderHook, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Harness, startHarness } from './testing.js'
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
  const data = result.current.data!
  if (data.kind !== 'rasa') throw new Error('expected a rasa result')
  expect(data.rows.map((r) => r.quote_id)).toEqual([open.quoteId])
  expect(h.rasa.httpRequests()).toHaveLength(1)
})

it('failed searches are ServiceRequestErrors in error; query overrides reach TanStack', async () => {
  h.enigma.injectHttpFault({ status: 400, body: { error: 'bad' } })
  const { result } = renderHook(() => useSearchNotifications({ solverId: 'alpha', account: A }), { wrapper: h.wrapper })
  await waitFor(() => expect(result.current.isError).toBe(true))
  expect([result.current.error?.code, result.current.error?.status]).toEqual(['HTTP_STATUS', 400])
  const disabled = renderHook(() => useSearchNotifications({ solverId: 'alpha', query: { enabled: false } }), { wrapper: h.wrapper })
  expect(disabled.result.current.fetchStatus).toBe('idle')
  expect(h.enigma.httpRequests()).toHaveLength(1)
})
