import { notificationsPlugin } from '@solver-notifications/vue'
import { QueryClient, VueQueryPlugin } from '@tanstack/vue-query'
import { exampleClient } from 'example-shared/appConfig'

// One client per app instance: on the server it is made too, but nothing connects until a stream
// subscribes (on mount, in the browser), and searches are off during server rendering.
export default defineNuxtPlugin((nuxtApp) => {
  const { simQuery } = useRuntimeConfig().public
  nuxtApp.vueApp.use(VueQueryPlugin, { queryClient: new QueryClient() }).use(notificationsPlugin, { client: exampleClient(`?${simQuery}`).client })
})
