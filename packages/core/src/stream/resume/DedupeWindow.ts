import { contentKey } from '../../protocol/notificationKey.js'
import type { Notification } from '../../protocol/types.js'

/** What a resume stream does with a notification. */
export type Verdict = 'new' | 'duplicate' | 'stale'

/**
 * A bounded memory of delivered notifications, by content (`contentKey`: quote, time, action,
 * status, state type, amounts), so a stored row and its live frame match with or without an id; the
 * ids seen, to count an id reused for other content (`frames.idReused`: delivered, it is another
 * transition); and the newest plausible `modify_time` delivered per quote, for per-quote order.
 * Memory is bounded by count (`size` entries per kind, oldest first) and by time: entries older than
 * what any later backfill can return are forgotten ({@link forgetBefore}).
 */
export class DedupeWindow {
  // Made on first use: an idle stream (thousands of them on a relay) keeps three empty maps less.
  /** content key → its plausible modify_time, or null */
  #contents: Map<string, number | null> | undefined
  /** id → content key */
  #ids: Map<string, string> | undefined
  #lastByQuote: Map<number, number> | undefined

  readonly #size: number

  constructor(size: number) {
    this.#size = size
  }

  get entries(): number {
    return (this.#contents?.size ?? 0) + (this.#lastByQuote?.size ?? 0)
  }

  /** Delivered already (the same content)? */
  has(n: Notification): boolean {
    return this.#contents?.has(contentKey(n)) ?? false
  }

  /**
   * `duplicate` when delivered already; `stale` when a row from history is older than what its quote
   * has delivered (only plausible times order a quote); else `new`. A live frame is never stale: a
   * late one is a real transition, and a quote's state is derived from all of them in `modify_time`
   * order whatever order they arrive in.
   */
  verdict(n: Notification, plausibleTime: boolean): Verdict {
    if (this.has(n)) return 'duplicate'
    if (n.source !== 'backfill' || !plausibleTime || n.modifyTime === null) return 'new'
    const last = this.#lastByQuote?.get(n.quoteId)
    return last !== undefined && n.modifyTime < last ? 'stale' : 'new'
  }

  /** Remembers a delivered notification; returns true when its id came before with other content. */
  remember(n: Notification, plausibleTime: boolean): boolean {
    const key = contentKey(n)
    const time = plausibleTime ? n.modifyTime : null
    bounded((this.#contents ??= new Map()), key, time, this.#size)
    let reused = false
    if (n.id !== null) {
      const ids = (this.#ids ??= new Map())
      const before = ids.get(n.id)
      reused = before !== undefined && before !== key
      bounded(ids, n.id, key, this.#size)
    }
    if (time !== null) {
      const byQuote = (this.#lastByQuote ??= new Map())
      const last = byQuote.get(n.quoteId)
      bounded(byQuote, n.quoteId, last === undefined ? time : Math.max(last, time), this.#size)
    }
    return reused
  }

  /**
   * Forgets what no later backfill can bring again: entries whose time is before `time`. Entries are
   * mostly in time order, so the walk from the oldest stops at the first newer one (stragglers go by count).
   */
  forgetBefore(time: number): void {
    const contents = this.#contents
    const ids = this.#ids
    const lastByQuote = this.#lastByQuote
    if (contents) {
      for (const [key, at] of contents) {
        if (at === null || at >= time) break
        contents.delete(key)
      }
      if (ids) {
        for (const [id, key] of ids) {
          if (contents.has(key)) break
          ids.delete(id)
        }
      }
    }
    if (lastByQuote) {
      for (const [quote, last] of lastByQuote) {
        if (last >= time) break
        lastByQuote.delete(quote)
      }
    }
  }
}

/** Sets `key` as the newest entry; past `size` entries the oldest goes. */
function bounded<K, V>(map: Map<K, V>, key: K, value: V, size: number): void {
  map.delete(key)
  map.set(key, value)
  if (map.size > size) map.delete(map.keys().next().value as K)
}
