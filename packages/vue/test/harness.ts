import { QueryClient, VueQueryPlugin } from '@tanstack/vue-query'
import type { Plugin } from 'vue'
import { startLive } from '@solver-notifications/test-support'
import { notificationsPlugin } from '../src/notificationsPlugin.js'
import WebSocket from 'ws'

/** Test harness: core's live harness plus the Vue plugins to install. */
export async function startHarness({ memory = true }: { memory?: boolean } = {}) {
  // The hooks are the point, not the sockets: the simulators run in memory (no port) unless a test
  // needs the page's own fetch (search: CORS, the browser's console line for a failed request).
  const live = await startLive({ WebSocket: WebSocket as never, lingerMs: 30 }, { memory })
  const queryClient = new QueryClient()
  const plugins: Array<[Plugin, ...unknown[]]> = [
    [VueQueryPlugin, { queryClient }],
    [notificationsPlugin, { client: live.client }],
  ]
  return {
    ...live,
    plugins,
    async stop() {
      queryClient.clear()
      await live.stop()
    },
  }
}
export type Harness = Awaited<ReturnType<typeof startHarness>>

// Registers the harness config, so the tests also check the composables' typing through `Register`:
// literal solver ids, and search results typed by `solverId` without generics.
declare module '@solver-notifications/core' {
  interface Register {
    config: Harness['config']
  }
}
