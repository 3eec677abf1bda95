import { type NotificationsClient, type NotificationsConfigInput, type RegisteredConfig, ServiceError } from '@solver-notifications/core'
import { getContext, hasContext, setContext } from 'svelte'

const CLIENT_KEY = Symbol('solver-notifications client')

/**
 * Makes a client available to this component and its children (call it during component init).
 *
 * @example
 * setNotificationsClient(createNotificationsClient({ config }))
 */
export function setNotificationsClient(client: NotificationsClient<any>): void {
  setContext(CLIENT_KEY, client)
}

/**
 * The client set by a parent; throws a `ServiceError` that says how to set one.
 *
 * @example
 * const client = getNotificationsClient()
 */
export function getNotificationsClient<C extends NotificationsConfigInput = RegisteredConfig>(): NotificationsClient<C> {
  const client = hasContext(CLIENT_KEY) ? getContext<NotificationsClient<C>>(CLIENT_KEY) : undefined
  if (!client) {
    throw new ServiceError('INVALID_CONFIG', 'No notifications client found: call setNotificationsClient(client) in a parent component.')
  }
  return client
}
