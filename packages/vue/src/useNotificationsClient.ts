import { type NotificationsClient, type NotificationsConfigInput, type RegisteredConfig, ServiceError } from '@solver-notifications/core'
import { hasInjectionContext, inject } from 'vue'
import { NOTIFICATIONS_CLIENT } from './notificationsPlugin.js'

/**
 * The installed client; throws a `ServiceError` that says how to install one.
 *
 * @example
 * const client = useNotificationsClient()
 */
export function useNotificationsClient<C extends NotificationsConfigInput = RegisteredConfig>(): NotificationsClient<C> {
  const client = hasInjectionContext() ? inject(NOTIFICATIONS_CLIENT, undefined) : undefined
  if (!client) {
    throw new ServiceError(
      'INVALID_CONFIG',
      'No notifications client found: call app.use(notificationsPlugin, { client }) or provideNotificationsClient(client) in a parent setup().',
    )
  }
  return client
}
