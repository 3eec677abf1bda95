import type { Notification } from '../protocol/types.js'

/**
 * A bounded memory of delivered notifications: by `id` when the frame has one, and by
 * quote + modify_time + action + status always, so a stored row and its live frame match either way.
 * The oldest keys are forgotten first; memory never grows past `size` entries per kind.
 */
export class DedupeWindow {
  private readonly keys = new Map<string, true>()
  /** newest modify_time delivered per quote, for per-quote ordering; bounded like the keys */
  private readonly lastByQuote = new Map<number, number>()

  constructor(private readonly size: number) {}

  get entries(): number {
    return this.keys.size + this.lastByQuote.size
  }

  /** Whether `n` was delivered already, or is older than what its quote has delivered. */
  rejects(n: Notification): boolean {
    if (n.id !== null && this.keys.has(`i${n.id}`)) return true
    if (this.keys.has(composite(n))) return true
    const last = this.lastByQuote.get(n.quoteId)
    return last !== undefined && n.modifyTime !== null && n.modifyTime < last
  }

  remember(n: Notification): void {
    if (n.id !== null) this.add(`i${n.id}`)
    this.add(composite(n))
    if (n.modifyTime !== null) {
      this.lastByQuote.delete(n.quoteId)
      this.lastByQuote.set(n.quoteId, Math.max(n.modifyTime, this.lastByQuote.get(n.quoteId) ?? 0))
      if (this.lastByQuote.size > this.size) this.lastByQuote.delete(this.lastByQuote.keys().next().value!)
    }
  }

  private add(key: string): void {
    this.keys.delete(key)
    this.keys.set(key, true)
    if (this.keys.size > this.size * 2) this.keys.delete(this.keys.keys().next().value!)
  }
}

function composite(n: Notification): string {
  return `c${n.quoteId}|${n.modifyTime}|${n.lastSeenAction}|${n.actionStatus}`
}
