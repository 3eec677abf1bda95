import { type Continuity, type QuoteState, QuotesObserver, type ServiceError, type SocketStatus, type UseQuotesOptions } from '@solver-notifications/core'
import { untrack } from 'svelte'
import { createSubscriber } from 'svelte/reactivity'
import { getNotificationsClient } from './context.js'

/**
 * The state of each quote of an account, now (with the book's `continuity`, docs/guide/continuity.md); pass options as a function so they stay reactive. The
 * fields are reactive and the book is followed only while something reads them (never during server
 * rendering). No account or `enabled: false` → `idle`, no socket, no request.
 *
 * @example
 * const book = useQuotes(() => ({ account }))
 * // {#each book.quotes as q (q.key)}<Row quote={q} />{/each}
 */
export function useQuotes(options: () => UseQuotesOptions): {
  readonly status: SocketStatus
  readonly error: ServiceError | null
  readonly ready: boolean
  readonly continuity: Continuity | undefined
  readonly quotes: readonly QuoteState[]
} {
  const observer = new QuotesObserver(getNotificationsClient(), untrack(options))
  $effect.pre(() => {
    const next = options()
    untrack(() => observer.setOptions(next))
  })
  const subscribe = createSubscriber((update) => observer.subscribe(update))
  const read = () => {
    subscribe()
    return observer.getSnapshot()
  }
  return {
    get status() {
      return read().status
    },
    get error() {
      return read().error
    },
    get ready() {
      return read().ready
    },
    get continuity() {
      return read().continuity
    },
    get quotes() {
      return read().quotes
    },
  }
}
