import { QuotesObserver, type QuotesState, type UseQuotesOptions } from '@solver-notifications/core'
import { useEffect, useState, useSyncExternalStore } from 'react'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * The state of each quote of an account, now: `{ status, error, ready, continuity, quotes }` (docs/guide/continuity.md), newest first. Unchanged
 * quotes keep their objects, so `memo` rows re-render only when their quote changed. No account or
 * `enabled: false` → `idle`, no socket, no request.
 *
 * @example
 * const { ready, quotes } = useQuotes({ account })
 * return ready ? quotes.map((q) => <Row key={q.key} quote={q} />) : <Spinner />
 */
export function useQuotes(options: UseQuotesOptions): QuotesState {
  const client = useNotificationsClient()
  const [observer, setObserver] = useState(() => new QuotesObserver(client, options))
  if (observer.client !== client) setObserver(new QuotesObserver(client, options))
  useEffect(() => observer.setOptions(options))
  return useSyncExternalStore(observer.subscribe, observer.getSnapshot, observer.getServerSnapshot)
}
