import { NotificationsObserver, type NotificationsState, type UseNotificationsOptions } from '@solver-notifications/core'
import { useEffect, useState, useSyncExternalStore } from 'react'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Follows the live notifications of an account: returns `{ status, error, continuity }` (docs/guide/continuity.md) and calls your callbacks,
 * which may change on every render without resubscribing. No account or `enabled: false` → `idle`.
 *
 * @example
 * const { status } = useNotifications({ account, onNotification: (n) => toast(n.type) })
 */
export function useNotifications(options: UseNotificationsOptions): NotificationsState {
  const client = useNotificationsClient()
  const [observer, setObserver] = useState(() => new NotificationsObserver(client, options))
  if (observer.client !== client) setObserver(new NotificationsObserver(client, options))
  // Latest callbacks without waiting for an effect; the subscription itself moves in the effect.
  observer.updateCallbacks(options)
  useEffect(() => observer.setOptions(options))
  return useSyncExternalStore(observer.subscribe, observer.getSnapshot, observer.getServerSnapshot)
}
