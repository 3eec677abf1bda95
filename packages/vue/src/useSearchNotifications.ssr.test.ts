// @vitest-environment node
import { QueryClient, VueQueryPlugin } from '@tanstack/vue-query'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSSRApp, defineComponent, h as hyper } from 'vue'
import { renderToString } from 'vue/server-renderer'
import { type Live, startLive } from '@solver-notifications/test-support'
import { notificationsPlugin } from './notificationsPlugin.js'
import { useSearchNotifications } from './useSearchNotifications.js'

// Server rendering (Nuxt, Vite SSR): a search composable sends nothing unless the app opts in.

const A = '0xAbC0000000000000000000000000000000000001'
let live: Live
beforeEach(async () => {
  live = await startLive()
})
afterEach(() => live.stop())

const render = async (query?: { enabled?: boolean }) => {
  const Search = defineComponent(() => {
    const { data, status } = useSearchNotifications(() => ({ solverId: 'beta' as const, account: A, ...(query ? { query } : {}) }))
    return () => hyper('p', data.value ? `rows:${data.value.rows.length}` : status.value)
  })
  const app = createSSRApp(Search)
  const queryClient = new QueryClient()
  app.use(VueQueryPlugin, { queryClient }).use(notificationsPlugin, { client: live.client })
  return { html: await renderToString(app), queryClient }
}

it('server rendering sends no search request by default, and opening no socket', async () => {
  const { html, queryClient } = await render()
  expect(html).toContain('pending')
  // Nothing in flight: a fetch started during the render would be counted here at once.
  expect(queryClient.isFetching()).toBe(0)
  expect(queryClient.getQueryCache().findAll().map((q) => q.state.fetchStatus)).toEqual(['idle'])
  expect(live.rasa.httpRequests()).toHaveLength(0)
  expect(live.client.stats().sockets).toBe(0)
})

it('query.enabled: true opts in (TanStack prefetch + hydration is then the app’s pattern)', async () => {
  await render({ enabled: true })
  await expect.poll(() => live.rasa.httpRequests().length).toBe(1)
})
