import type { Peer } from './crossTabState.js'

/** How often each tab says it is alive: every cross-tab deadline is a multiple of it (see `crossTabReducer.ts`). */
export const BEAT_MS = 1_000

/**
 * This tab's `notifyOnce` claims (they go out in its beats) and who runs a key's callback, from the
 * other tabs' beats the cross-tab reducer keeps.
 */
export class TabPeers {
  readonly #claims = new Map<string, number>()
  /** this tab's claims changed: beat now, so the others agree sooner */
  readonly #changed: () => void

  constructor(changed: () => void) {
    this.#changed = changed
  }

  /** The keys this tab claims, for its beat. */
  claimed(): string[] {
    return [...this.#claims.keys()]
  }

  /** `notifyOnce`: this tab wants the callback for `key`; the returned function withdraws. */
  claim(key: string): () => void {
    this.#claims.set(key, (this.#claims.get(key) ?? 0) + 1)
    this.#changed()
    return () => {
      const left = (this.#claims.get(key) ?? 1) - 1
      if (left > 0) this.#claims.set(key, left)
      else this.#claims.delete(key)
      this.#changed()
    }
  }

  /** Whether `id` runs `notifyOnce` callbacks for `key`: of the tabs that claim it, the visible one (lowest id), else the lowest id. */
  static isNotifier(key: string, id: string, visible: boolean, live: Array<[string, Peer]>): boolean {
    const candidates = [{ tab: id, visible }]
    for (const [tab, peer] of live) if (peer.once.includes(key)) candidates.push({ tab, visible: peer.visible })
    const shown = candidates.filter((c) => c.visible)
    const pool = shown.length > 0 ? shown : candidates
    return pool.reduce((a, b) => (b.tab < a.tab ? b : a)).tab === id
  }
}
