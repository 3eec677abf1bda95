import { contentKey } from '../../protocol/notificationKey.js'
import type { Notification } from '../../protocol/types.js'

/** What a resume stream does with a notification. */
export type Verdict = 'new' | 'duplicate' | 'stale'

/**
 * A bounded memory of delivered notifications: by `id` when the frame has one, and by content
 * (`contentKey`: quote, time, action, status, state type, amounts) always, so a stored row and its live frame match either way;
 * plus the newest plausible `modify_time` delivered per quote, for per-quote order. The oldest entries
 * are forgotten first; memory never grows past `size` entries per kind.
 */
export class DedupeWindow {
  private readonly keys = new Map<string, true>()
  private readonly lastByQuote = new Map<number, number>()

  constructor(private readonly size: number) {}

  get entries(): number {
    return this.keys.size + this.lastByQuote.size
  }

  /** Delivered already (by id or content)? */
  has(n: Notification): boolean {
    return (n.id !== null && this.keys.has(`i${n.id}`)) || this.keys.has(composite(n))
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
    const last = this.lastByQuote.get(n.quoteId)
    return last !== undefined && n.modifyTime < last ? 'stale' : 'new'
  }

  remember(n: Notification, plausibleTime: boolean): void {
    if (n.id !== null) this.add(`i${n.id}`)
    this.add(composite(n))
    if (!plausibleTime || n.modifyTime === null) return
    const last = this.lastByQuote.get(n.quoteId)
    this.lastByQuote.delete(n.quoteId)
    this.lastByQuote.set(n.quoteId, last === undefined ? n.modifyTime : Math.max(last, n.modifyTime))
    if (this.lastByQuote.size > this.size) this.lastByQuote.delete(this.lastByQuote.keys().next().value!)
  }

  private add(key: string): void {
    this.keys.delete(key)
    this.keys.set(key, true)
    if (this.keys.size > this.size * 2) this.keys.delete(this.keys.keys().next().value!)
  }
}

/** By content, so a stored row without an id matches its live frame (the one definition: `contentKey`). */
function composite(n: Notification): string {
  return `c${contentKey(n)}`
}
