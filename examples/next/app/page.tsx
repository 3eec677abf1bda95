'use client'
import { useNotifications, useQuotes, useSearchNotifications } from '@solver-notifications/react'
import { DEMO_ACCOUNT } from 'example-shared/appConfig'
import { useState } from 'react'

export default function Page() {
  const [last, setLast] = useState<string>('none')
  const { status } = useNotifications({ account: DEMO_ACCOUNT, solverId: 'beta', onNotification: (n) => setLast(`quote ${n.quoteId} ${n.type}`) })
  const { quotes } = useQuotes({ account: DEMO_ACCOUNT, solverId: 'beta' })
  const search = useSearchNotifications({ solverId: 'beta', account: DEMO_ACCOUNT })
  return (
    <main>
      <h1>solver notifications on Next.js</h1>
      <p data-testid="status">{status}</p>
      <p data-testid="last">{last}</p>
      <p data-testid="quotes">{quotes.length} quotes</p>
      <p data-testid="search">{search.data ? `history ${search.data.rows.length} rows` : `history ${search.status}`}</p>
    </main>
  )
}
