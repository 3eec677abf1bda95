/** Beats: how often each tab says it is alive, and after how long a silent tab counts as gone. */
export const BEAT_MS = 1_000
export const GONE_MS = 3_500

/** What a tab knows of another from its beats. */
export interface Peer {
  visible: boolean
  seenAt: number
  /** it leads (believed only for the tab the locks confirmed) */
  leader: boolean
  /** the `notifyOnce` keys it claims */
  once: string[]
}

/**
 * The other tabs, as their beats tell: who is alive (heard within `GONE_MS`), who is visible, and who
 * claims which `notifyOnce` keys. This tab's own claims go out in its beats.
 */
export class TabPeers {
  readonly #peers = new Map<string, Peer>()
  readonly #claims = new Map<string, number>()

  readonly #id: string
  readonly #isVisible: () => boolean
  /** this tab's claims changed: beat now, so the others agree sooner */
  readonly #changed: () => void
  /** the pool's monotonic clock (a wall clock stepped back would keep a gone tab alive) */
  readonly #now: () => number

  constructor(
    id: string,
    isVisible: () => boolean,
    changed: () => void,
    now: () => number) {
    this.#now = now
    this.#id = id
    this.#isVisible = isVisible
    this.#changed = changed
  }

  /** The keys this tab claims, for its beat. */
  claimed(): string[] {
    return [...this.#claims.keys()]
  }

  has(tab: string): boolean {
    return this.#peers.has(tab)
  }

  heard(tab: string, beat: Omit<Peer, 'seenAt'>): void {
    this.#peers.set(tab, { ...beat, seenAt: this.#now() })
  }

  /** Any message from a tab shows it is alive. */
  seen(tab: string): void {
    const peer = this.#peers.get(tab)
    if (peer) peer.seenAt = this.#now()
  }

  delete(tab: string): void {
    this.#peers.delete(tab)
  }

  /** Forgets tabs silent for `GONE_MS` and returns them. */
  expire(): string[] {
    const now = this.#now()
    const gone: string[] = []
    for (const [tab, peer] of this.#peers) {
      if (now - peer.seenAt < GONE_MS) continue
      this.#peers.delete(tab)
      gone.push(tab)
    }
    return gone
  }

  live(): Array<[string, Peer]> {
    const now = this.#now()
    return [...this.#peers].filter(([, p]) => now - p.seenAt < GONE_MS)
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

  /** Whether this tab runs `notifyOnce` callbacks for `key`: of the tabs that claim it, the visible one (lowest id), else the lowest id. */
  isNotifier(key: string): boolean {
    const candidates = [{ tab: this.#id, visible: this.#isVisible() }]
    for (const [tab, peer] of this.live()) if (peer.once.includes(key)) candidates.push({ tab, visible: peer.visible })
    const visible = candidates.filter((c) => c.visible)
    const pool = visible.length > 0 ? visible : candidates
    return pool.reduce((a, b) => (b.tab < a.tab ? b : a)).tab === this.#id
  }
}
