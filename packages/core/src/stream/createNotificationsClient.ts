import type { NotificationsConfigInput } from '../config/types.js'
import type { NotificationsClientOptions } from './clientOptions.js'
import { type NotificationsStreamClient, createStreamClient } from './createStreamClient.js'

/**
 * The client apps use: live streams over the shared pool (and, from the search module, history search).
 *
 * @example
 * const client = createNotificationsClient({ config })
 * client.notifications({ account }).subscribe((n) => console.log(n.quoteId, n.type))
 */
export type NotificationsClient<C extends NotificationsConfigInput = NotificationsConfigInput> = NotificationsStreamClient<C>

/**
 * Creates a {@link NotificationsClient}. Nothing connects until the first subscription.
 *
 * @example
 * const client = createNotificationsClient({ config, lingerMs: 2_000 })
 */
export function createNotificationsClient<C extends NotificationsConfigInput>(options: NotificationsClientOptions<C>): NotificationsClient<C> {
  return createStreamClient(options)
}
