import { render, screen, waitFor } from '@testing-library/vue'
import type { RasaSearchResult } from '@solver-notifications/core'
import { afterEach, beforeEach, expect, expectTypeOf, it, vi } from 'vitest'
import { defineComponent, h as hyper, ref } from 'vue'
import { type Harness, startHarness } from '../test/harness.js'
import { useInfiniteSearchNotifications } from './useInfiniteSearchNotifications.js'
import { useSearchNotifications } from './useSearchNotifications.js'

const A = '0xAbC0000000000000000000000000000000000001'
let h: Harness
beforeEach(async () => {
  h = await startHarness({ memory: false })
})
afterEach(() => h.stop())

it('searches with reactive params; data narrows on kind; errors are ServiceRequestErrors', async () => {
  for (let i = 0; i < 3; i++) await h.rasa.instantOpen(A)
  const start = ref(0)
  const Search = defineComponent(() => {
    const { data, error } = useSearchNotifications(() => ({ solverId: 'beta', account: A, start: start.value, size: 2 }))
    // The registered config (testing.ts) types the result by solverId.
    expectTypeOf(data.value).toEqualTypeOf<RasaSearchResult | undefined>()
    return () => {
      const result = data.value
      if (error.value) return hyper('p', `error:${error.value.code}`)
      if (!result) return hyper('p', 'loading')
      return hyper('p', result.kind === 'rasa' ? `rasa rows:${result.rows.map((r) => r.quote_id).join(',')} count:${result.count}` : 'enigma')
    }
  })
  render(Search, { global: { plugins: h.plugins } })
  await screen.findByText('rasa rows:1002,1001 count:3')
  start.value = 2
  await screen.findByText('rasa rows:1000 count:3')
  expect(h.rasa.httpRequests().map((r) => r.url)).toEqual(['/position-state/0/2', '/position-state/2/2'])
  // happy-dom's fetch logs failed requests to the console, as a browser's devtools would: expected here.
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
  h.rasa.injectHttpFault({ status: 400 })
  start.value = 1
  await screen.findByText('error:HTTP_STATUS')
  await waitFor(() => expect(h.rasa.httpRequests()).toHaveLength(3))
  expect(logged.mock.calls.map(([line]) => String(line))).toEqual([expect.stringMatching(/^POST .*\/position-state\/1\/2 400 \(Bad Request\)$/)])
  logged.mockRestore()
})

it('select may change the data type (typed so); useInfiniteSearchNotifications pages until the count', async () => {
  for (let i = 0; i < 3; i++) await h.rasa.instantOpen(A)
  const Pages = defineComponent(() => {
    const ids = useSearchNotifications(() => ({ solverId: 'beta', account: A, query: { select: (page) => page.rows.map((r) => r.quote_id) } }))
    expectTypeOf(ids.data.value).toEqualTypeOf<Array<number | null | undefined> | undefined>()
    const pages = useInfiniteSearchNotifications(() => ({ solverId: 'beta', account: A, size: 2 }))
    expectTypeOf(pages.data.value?.pages).toEqualTypeOf<RasaSearchResult[] | undefined>()
    return () =>
      hyper('div', [
        hyper('p', `ids:${ids.data.value?.join(',') ?? ''}`),
        hyper('p', `pages:${pages.data.value?.pages.map((p) => p.rows.length).join(',') ?? ''} more:${pages.hasNextPage.value}`),
        hyper('button', { onClick: () => pages.fetchNextPage() }, 'next'),
      ])
  })
  render(Pages, { global: { plugins: h.plugins } })
  await screen.findByText('ids:1002,1001,1000')
  await screen.findByText('pages:2 more:true')
  ;(await screen.findByText('next')).click()
  await screen.findByText('pages:2,1 more:false')
})
