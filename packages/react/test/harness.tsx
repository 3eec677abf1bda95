import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { startLive } from '@solver-notifications/test-support'
import { NotificationsProvider } from '../src/NotificationsProvider.js'
import WebSocket from 'ws'

/** Test harness: core's live harness (a simulator per protocol, a client on Node `ws`) plus React providers. */
export async function startHarness({ memory = true }: { memory?: boolean } = {}) {
  // The hooks are the point, not the sockets: the simulators run in memory (no port) unless a test
  // needs the page's own fetch (search: CORS, the browser's console line for a failed request).
  const live = await startLive({ WebSocket: WebSocket as never, lingerMs: 30 }, { memory })
  const queryClient = new QueryClient()
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <NotificationsProvider client={live.client}>{children}</NotificationsProvider>
    </QueryClientProvider>
  )
  return {
    ...live,
    wrapper,
    async stop() {
      queryClient.clear()
      await live.stop()
    },
  }
}
export type Harness = Awaited<ReturnType<typeof startHarness>>

// Registers the harness config, so the tests also check the hooks' typing through `Register`:
// literal solver ids, and search results typed by `solverId` without generics.
declare module '@solver-notifications/core' {
  interface Register {
    config: Harness['config']
  }
}
