import { type Continuity, type QuoteState, QuotesObserver, type ServiceError, type SocketStatus, type UseQuotesOptions } from '@solver-notifications/core'
import { type MaybeRefOrGetter, type Ref, getCurrentInstance, onMounted, onScopeDispose, readonly, shallowRef, toValue, watch } from 'vue'
import { useNotificationsClient } from './useNotificationsClient.js'

/**
 * The state of each quote of an account, now, as readonly refs (with the book's `continuity`, docs/guide/continuity.md); `options` may be a ref or a getter.
 * `quotes` is newest first and keeps the objects of unchanged quotes. No account or `enabled: false`
 * → `idle`, no socket, no request.
 *
 * @example
 * const { ready, quotes } = useQuotes(() => ({ account: account.value }))
 */
export function useQuotes(options: MaybeRefOrGetter<UseQuotesOptions>): {
  status: Readonly<Ref<SocketStatus>>
  error: Readonly<Ref<ServiceError | null>>
  ready: Readonly<Ref<boolean>>
  continuity: Readonly<Ref<Continuity | undefined>>
  quotes: Readonly<Ref<readonly QuoteState[]>>
} {
  const observer = new QuotesObserver(useNotificationsClient(), toValue(options))
  const initial = observer.getSnapshot()
  const status = shallowRef(initial.status)
  const error = shallowRef(initial.error)
  const ready = shallowRef(initial.ready)
  const continuity = shallowRef(initial.continuity)
  const quotes = shallowRef(initial.quotes)
  watch(() => toValue(options), (next) => observer.setOptions(next))
  const start = () => {
    const stop = observer.subscribe(() => {
      const book = observer.getSnapshot()
      status.value = book.status
      error.value = book.error
      ready.value = book.ready
      continuity.value = book.continuity
      quotes.value = book.quotes
    })
    onScopeDispose(stop)
  }
  // In a component, connect on mount (never during server rendering); in a bare effect scope, now.
  if (getCurrentInstance()) onMounted(start)
  else start()
  return { status: readonly(status), error: readonly(error), ready: readonly(ready), continuity: readonly(continuity), quotes: readonly(quotes) as Readonly<Ref<readonly QuoteState[]>> }
}
