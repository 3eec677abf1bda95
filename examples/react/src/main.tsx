import { NotificationsProvider } from '@solver-notifications/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { exampleClient } from 'example-shared/appConfig'
import 'example-shared/style.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App.js'

const { client, account } = exampleClient(location.search)
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={new QueryClient()}>
      <NotificationsProvider client={client}>
        <App initialAccount={account} />
      </NotificationsProvider>
    </QueryClientProvider>
  </StrictMode>,
)
