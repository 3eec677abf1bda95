import type { ReactNode } from 'react'
import { Providers } from './providers'

// Rendered on the server for every request (not prerendered), so the test proves a real server render
// opens no socket and sends no search.
export const dynamic = 'force-dynamic'

// A server component: the client-side providers render inside it (the React package is "use client").
// The simulator URLs come from the server's environment (the browser test starts the simulators first).
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers simulators={process.env.SIM_QUERY ?? ''}>{children}</Providers>
      </body>
    </html>
  )
}
