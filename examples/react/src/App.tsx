import type { Address, SocketStatus } from '@solver-notifications/core'
import { useNotifications, useNotificationsClient } from '@solver-notifications/react'
import { Suspense, lazy, useEffect, useState } from 'react'
import { SearchPanel } from './SearchPanel.js'
import { QuoteBook } from './QuoteBook.js'

// The devtools panel is fetched only when someone turns it on: nothing of it is in the app's main chunk.
const NotificationsDevtools = lazy(() => import('@solver-notifications/devtools/react').then((m) => ({ default: m.NotificationsDevtools })))

export function App(props: { initialAccount: Address; shared: boolean; onShareChange: (on: boolean) => void }) {
  const [account, setAccount] = useState<string>(props.initialAccount)
  const [solverId, setSolverId] = useState<'beta' | 'alpha'>('beta')
  const [log, setLog] = useState<SocketStatus[]>([])
  const valid = /^0x[0-9a-fA-F]{40}$/.test(account)
  const role = useCrossTabRole()
  const client = useNotificationsClient()
  const [devtools, setDevtools] = useState(false)
  const { status, error } = useNotifications({
    account: valid ? (account as Address) : undefined,
    solverId,
    // After a drop, what the socket missed is read from history (the devtools show the backfill).
    resume: true,
    onStatusChange: (s) => setLog((l) => [...l.slice(-7), s]),
  })
  return (
    <main>
      <header>
        <h1>Solver notifications</h1>
        <input aria-label="account" value={account} onChange={(e) => setAccount(e.target.value)} />
        <select aria-label="solver" value={solverId} onChange={(e) => setSolverId(e.target.value as 'beta' | 'alpha')}>
          <option value="beta">beta (rasa)</option>
          <option value="alpha">alpha (enigma)</option>
        </select>
        <span data-testid="status" className={`badge status-${status}`}>{status}</span>
        <span data-testid="status-log" className="log">{log.join(' → ')}</span>
        {error && <span className="badge type-failed">{error.code}: {error.message}</span>}
        <label className="log">
          <input type="checkbox" checked={props.shared} onChange={(e) => props.onShareChange(e.target.checked)} /> share sockets across tabs
          {role && <span data-testid="cross-tab-role"> ({role})</span>}
        </label>
        <label className="log">
          <input type="checkbox" aria-label="devtools" checked={devtools} onChange={(e) => setDevtools(e.target.checked)} /> devtools
        </label>
      </header>
      {devtools && (
        <Suspense fallback={null}>
          <NotificationsDevtools client={client} />
        </Suspense>
      )}
      <QuoteBook account={valid ? (account as Address) : undefined} solverId={solverId} />
      <SearchPanel account={valid ? (account as Address) : undefined} solverId={solverId} />
    </main>
  )
}

/** This tab's part when sockets are shared: "leader" (holds them) or "follower · 2 tabs"; polled, as stats are. */
function useCrossTabRole(): string | undefined {
  const client = useNotificationsClient()
  const [role, setRole] = useState<string>()
  useEffect(() => {
    const read = () => {
      const crossTab = client.stats().crossTab
      setRole(crossTab && `${crossTab.role} · ${crossTab.tabs} tabs`)
    }
    read()
    const timer = setInterval(read, 500)
    return () => clearInterval(timer)
  }, [client])
  return role
}
