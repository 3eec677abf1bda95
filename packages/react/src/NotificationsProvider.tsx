import type { NotificationsClient } from '@solver-notifications/core'
import { type ReactNode, createContext } from 'react'

export const NotificationsContext = createContext<NotificationsClient<any> | undefined>(undefined)

/**
 * Makes a notifications client available to the hooks below it. Wrap it in TanStack's
 * `QueryClientProvider` to use `useSearchNotifications`.
 *
 * @example
 * <NotificationsProvider client={client}><App /></NotificationsProvider>
 */
export function NotificationsProvider(props: { client: NotificationsClient<any>; children?: ReactNode }) {
  return <NotificationsContext.Provider value={props.client}>{props.children}</NotificationsContext.Provider>
}
