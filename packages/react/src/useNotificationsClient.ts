import { type NotificationsClient, type NotificationsConfigInput, type RegisteredConfig, ServiceError } from '@solver-notifications/core'
import { useContext } from 'react'
import { NotificationsContext } from './NotificationsProvider.js'

/**
 * The client of the nearest `NotificationsProvider`; throws a `ServiceError` that says how to fix a missing provider.
 *
 * @example
 * const client = useNotificationsClient()
 */
export function useNotificationsClient<C extends NotificationsConfigInput = RegisteredConfig>(): NotificationsClient<C> {
  const client = useContext(NotificationsContext)
  if (!client) {
    throw new ServiceError(
      'INVALID_CONFIG',
      'No notifications client found: wrap your app in <NotificationsProvider client={createNotificationsClient({ config })}>.',
    )
  }
  return client
}
