import { type Continuity, NotificationsObserver, type ServiceError, type SocketStatus, type UseNotificationsOptions } from '@solver-notifications/core'
import { type MaybeRefOrGetter, type Ref, getCurrentInstance, getCurrentScope, onMounted, onScopeDispose, readonly, shallowRef, toValue, watch } from 'vue'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * Follows the live notifications of an account; `options` may be a ref or a getter. Returns readonly
 * `status`, `error` and `continuity` refs (docs/guide/continuity.md); released when the scope stops. No account or `enabled: false` → `idle`.
 *
 * @example
 * const { status } = useNotifications(() => ({ account: account.value, onNotification: (n) => items.value.push(n) }))
 */
export function useNotifications(options: MaybeRefOrGetter<UseNotificationsOptions>): {
  status: Readonly<Ref<SocketStatus>>
  error: Readonly<Ref<ServiceError | null>>
  continuity: Readonly<Ref<Continuity | undefined>>
} {
  const client = useNotificationsClient()
  const observer = new NotificationsObserver(client, toValue(options))
  const status = shallowRef(observer.getSnapshot().status)
  const error = shallowRef(observer.getSnapshot().error)
  const continuity = shallowRef(observer.getSnapshot().continuity)
  watch(() => toValue(options), (next) => observer.setOptions(next))
  const start = () => {
    const stop = observer.subscribe(() => {
      ;({ status: status.value, error: error.value, continuity: continuity.value } = observer.getSnapshot())
    })
    onScopeDispose(stop)
  }
  if (!getCurrentScope() && isDev()) {
    console.warn('useNotifications() was called outside a component or effect scope: it is never released. Call it in setup() or an effectScope().')
  }
  // In a component, connect on mount (never during server rendering); in a bare effect scope, now.
  if (getCurrentInstance()) onMounted(start)
  else start()
  return { status: readonly(status), error: readonly(error), continuity: readonly(continuity) }
}

/** Bundlers replace NODE_ENV; plain browser ESM has no `process`, and warns too. */
function isDev(): boolean {
  const env = (globalThis as { process?: { env?: { NODE_ENV?: string } } }).process?.env?.NODE_ENV
  return env !== 'production'
}
