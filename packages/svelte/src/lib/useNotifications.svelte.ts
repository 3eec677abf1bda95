import { type Continuity, NotificationsObserver, type ServiceError, type SocketStatus, type UseNotificationsOptions } from '@solver-notifications/core'
import { untrack } from 'svelte'
import { createSubscriber } from 'svelte/reactivity'
import { getNotificationsClient } from './context.js'

/**
 * Follows the live notifications of an account; pass options as a function so they stay reactive.
 * `status`, `error` and `continuity` (docs/guide/continuity.md) are reactive; the stream runs only while something reads them (never during
 * server rendering). No account or `enabled: false` → `idle`.
 *
 * @example
 * const live = useNotifications(() => ({ account, onNotification: (n) => items.push(n) }))
 * // {live.status}
 */
export function useNotifications(options: () => UseNotificationsOptions): { readonly status: SocketStatus; readonly error: ServiceError | null; readonly continuity: Continuity | undefined } {
  const observer = new NotificationsObserver(getNotificationsClient(), untrack(options))
  // Read options in an effect so account/solver changes move the subscription and callbacks stay fresh.
  $effect.pre(() => {
    const next = options()
    untrack(() => observer.setOptions(next))
  })
  const subscribe = createSubscriber((update) => observer.subscribe(update))
  return {
    get status() {
      subscribe()
      return observer.getSnapshot().status
    },
    get error() {
      subscribe()
      return observer.getSnapshot().error
    },
    get continuity() {
      subscribe()
      return observer.getSnapshot().continuity
    },
  }
}
