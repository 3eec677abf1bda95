import type { QuoteState } from './QuoteState.js'

/** Newest `modifyTime` first; ties (and quotes without a time, which go last) by key, so the order is total. */
export function byRecency(a: QuoteState, b: QuoteState): number {
  const x = a.modifyTime ?? Number.NEGATIVE_INFINITY
  const y = b.modifyTime ?? Number.NEGATIVE_INFINITY
  if (x !== y) return x > y ? -1 : 1
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0
}

/**
 * One version of a book's sorted quote list, made lazily: a version is the changes since the one
 * before it, and the array is built only when someone reads it (then kept). A live update into a
 * book of 10,000 quotes therefore costs what it costs in a book of 100, and an app that renders
 * once per frame pays for one array per render, not one per update. Versions no reader asked for
 * are folded together when the chain gets long, so memory stays bounded.
 */
export class QuoteListVersion {
  private array: readonly QuoteState[] | undefined
  private prev: QuoteListVersion | undefined
  private readonly removed: readonly QuoteState[]
  private readonly added: readonly QuoteState[]
  /** unbuilt versions back to the nearest built one */
  readonly depth: number

  constructor(prev: QuoteListVersion | undefined, removed: readonly QuoteState[], added: readonly QuoteState[], size: number) {
    this.removed = removed
    this.added = added
    if (!prev) {
      this.array = Object.freeze([...added].sort(byRecency))
      this.depth = 0
      return
    }
    this.prev = prev
    this.depth = prev.depth + 1
    // Built now and then (amortised: one element copied per change) so an unread chain cannot grow forever.
    if (this.depth > Math.max(256, size)) this.quotes()
  }

  /** An empty first version. */
  static empty(): QuoteListVersion {
    return new QuoteListVersion(undefined, [], [], 0)
  }

  quotes(): readonly QuoteState[] {
    if (this.array) return this.array
    const chain: QuoteListVersion[] = []
    let node: QuoteListVersion = this
    while (!node.array) {
      chain.push(node)
      node = node.prev!
    }
    const gone = new Set<QuoteState>()
    const added: QuoteState[] = []
    for (let i = chain.length - 1; i >= 0; i--) {
      const version = chain[i]!
      for (const q of version.removed) gone.add(q)
      for (const q of version.added) added.push(q)
    }
    const fresh = added.filter((q) => !gone.has(q)).sort(byRecency)
    this.array = Object.freeze(merge(node.array, gone, fresh))
    this.prev = undefined
    return this.array
  }
}

/** `base` without `gone`, merged with sorted `fresh`: one pass. */
function merge(base: readonly QuoteState[], gone: Set<QuoteState>, fresh: QuoteState[]): QuoteState[] {
  const out: QuoteState[] = []
  let j = 0
  for (let i = 0; i < base.length; i++) {
    const q = base[i]!
    if (gone.has(q)) continue
    while (j < fresh.length && byRecency(fresh[j]!, q) < 0) out.push(fresh[j++]!)
    out.push(q)
  }
  while (j < fresh.length) out.push(fresh[j++]!)
  return out
}
