import { NotificationsProvider } from '@solver-notifications/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { exampleClient } from 'example-shared/appConfig'
import 'example-shared/style.css'
import { StrictMode, useMemo, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.js'

const queryClient = new QueryClient()

// "Share sockets across tabs" is remembered per origin, so every tab opened later shares too.
function Root() {
  const [shared, setShared] = useState(() => localStorage.getItem('crossTab') === '1')
  const { client, account } = useMemo(() => exampleClient(location.search, shared ? { crossTab: true } : {}), [shared])
  const toggle = (on: boolean) => {
    localStorage.setItem('crossTab', on ? '1' : '0')
    setShared(on)
    // The old client goes once the hooks moved to the new one (not in an effect cleanup: StrictMode runs those on mount).
    setTimeout(() => client.close(), 0)
  }
  return (
    <NotificationsProvider client={client}>
      <App initialAccount={account} shared={shared} onShareChange={toggle} />
    </NotificationsProvider>
  )
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Root />
    </QueryClientProvider>
  </StrictMode>,
)
