'use client'
import { NotificationsProvider } from '@solver-notifications/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { exampleClient } from 'example-shared/appConfig'
import { type ReactNode, useState } from 'react'

// One client per render root: on the server it is made too, but nothing connects until a stream
// subscribes, which happens in effects, in the browser. Queries run in the browser only.
export function Providers({ simulators, children }: { simulators: string; children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { enabled: typeof window !== 'undefined' } } }))
  const [{ client }] = useState(() => exampleClient(`?${simulators}`))
  return (
    <QueryClientProvider client={queryClient}>
      <NotificationsProvider client={client}>{children}</NotificationsProvider>
    </QueryClientProvider>
  )
}
