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
  /** the sorted list, never handed to apps: later versions are built from it (each book copies it for its reader) */
  #array: QuoteState[] | undefined
  #prev: QuoteListVersion | undefined
  readonly #removed: readonly QuoteState[]
  readonly #added: readonly QuoteState[]
  /** unbuilt versions back to the nearest built one */
  readonly depth: number

  constructor(prev: QuoteListVersion | undefined, removed: readonly QuoteState[], added: readonly QuoteState[], size: number) {
    this.#removed = removed
    this.#added = added
    if (!prev) {
      this.#array = [...added].sort(byRecency)
      this.depth = 0
      return
    }
    this.#prev = prev
    this.depth = prev.#array ? 1 : prev.depth + 1
    // Built now and then (amortised: one element copied per change) so an unread chain cannot grow forever.
    if (this.depth > Math.max(256, size)) this.#build()
  }

  /** An empty first version. */
  static empty(): QuoteListVersion {
    return new QuoteListVersion(undefined, [], [], 0)
  }

  /** The sorted list of this version; shared, so only read it (a book hands its reader a copy). */
  quotes(): readonly QuoteState[] {
    return this.#build()
  }

  #build(): QuoteState[] {
    if (this.#array) return this.#array
    const chain: QuoteListVersion[] = []
    let node: QuoteListVersion = this
    while (!node.#array) {
      chain.push(node)
      node = node.#prev!
    }
    const gone = new Set<QuoteState>()
    const added: QuoteState[] = []
    for (let i = chain.length - 1; i >= 0; i--) {
      const version = chain[i]!
      for (const q of version.#removed) gone.add(q)
      for (const q of version.#added) added.push(q)
    }
    const fresh = added.filter((q) => !gone.has(q)).sort(byRecency)
    // By how much changed: a few (a render per update) are spliced into a copy; dozens to hundreds (a render
    // per frame) are found by binary search and the runs between them copied; more (a long unread chain) merged.
    const changes = gone.size + fresh.length
    this.#array = changes <= 32 ? splice(node.#array, gone, fresh) : changes <= 1_024 ? rebuild(node.#array, gone, fresh) : merge(node.#array, gone, fresh)
    this.#prev = undefined
    return this.#array
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

/**
 * `base` without `gone`, with sorted `fresh` in place: the changes are found by binary search and the
 * untouched runs between them copied by native slices, so a book of 10,000 costs a memory copy plus
 * a few comparisons per change, never a comparison per quote.
 */
function rebuild(base: readonly QuoteState[], gone: Set<QuoteState>, fresh: QuoteState[]): QuoteState[] {
  const removed: number[] = []
  for (const q of gone) {
    const at = lowerBound(base, q)
    // Quotes added and removed within the versions being built were never in `base`.
    if (base[at] === q) removed.push(at)
  }
  removed.sort((a, b) => a - b)
  const pieces: Array<readonly QuoteState[] | QuoteState> = []
  let cursor = 0
  let r = 0
  let f = 0
  let next = f < fresh.length ? lowerBound(base, fresh[f]!) : Number.POSITIVE_INFINITY
  while (r < removed.length || f < fresh.length) {
    const cut = r < removed.length ? removed[r]! : Number.POSITIVE_INFINITY
    // A new quote goes before the base quote at its position, and before that quote is removed.
    if (next <= cut) {
      pieces.push(base.slice(cursor, next), fresh[f]!)
      cursor = next
      f++
      next = f < fresh.length ? lowerBound(base, fresh[f]!) : Number.POSITIVE_INFINITY
    } else {
      pieces.push(base.slice(cursor, cut))
      cursor = cut + 1
      r++
    }
  }
  pieces.push(base.slice(cursor))
  return ([] as QuoteState[]).concat(...(pieces as QuoteState[][]))
}

/** The first index whose quote sorts at or after `q`. */
function lowerBound(list: readonly QuoteState[], q: QuoteState): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (byRecency(list[mid]!, q) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** `base` without `gone`, with `fresh` inserted: a copy and one move per change. */
function splice(base: readonly QuoteState[], gone: Set<QuoteState>, fresh: QuoteState[]): QuoteState[] {
  const out = base.slice()
  for (const q of gone) {
    const at = lowerBound(out, q)
    if (out[at] === q) out.splice(at, 1)
  }
  for (const q of fresh) out.splice(lowerBound(out, q), 0, q)
  return out
}
