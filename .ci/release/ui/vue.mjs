// Vue from its tarball: createSSRApp with the composables rendered to a string (no socket, no search).
import { QueryClient, VueQueryPlugin } from '@tanstack/vue-query'
import { createSSRApp, defineComponent, h } from 'vue'
import { renderToString } from 'vue/server-renderer'
import { notificationsPlugin, useNotifications, useQuotes, useSearchNotifications } from '@solver-notifications/vue'
import { account, check, startSmoke } from './shared.mjs'

const smoke = await startSmoke()
const client = smoke.client()
const App = defineComponent(() => {
  const live = useNotifications(() => ({ account }))
  const search = useSearchNotifications(() => ({ account }))
  const book = useQuotes(() => ({ account }))
  return () => h('p', `status:${live.status.value} search:${search.status.value} quotes:${book.quotes.value.length}`)
})
const app = createSSRApp(App).use(VueQueryPlugin, { queryClient: new QueryClient() }).use(notificationsPlugin, { client })
const html = await renderToString(app)
check(html.includes('status:idle') && html.includes('search:pending') && html.includes('quotes:0'), `server HTML, got ${html}`)
check(client.stats().sockets === 0, 'server rendering opened no socket')
check(smoke.sim.httpRequests().length === 0, 'server rendering sent no search')
await smoke.stop()
console.log('vue (createSSRApp with useNotifications, useSearchNotifications, useQuotes): ok')
