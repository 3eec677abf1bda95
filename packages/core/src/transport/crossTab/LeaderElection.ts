import type { Timers } from '../Timers.js'

/** The part of the Web Locks API the cross-tab pool uses. */
export type LocksLike = {
  request(name: string, options: { steal?: boolean; signal?: AbortSignal }, callback: () => Promise<void>): Promise<void>
  query?(): Promise<{ held?: Array<{ name?: string; clientId?: string }> }>
}

/**
 * Who leads the tabs, by Web Locks alone: the tab holding `<lockName>` leads until its lock ends
 * (closed, crashed, or stolen by a tab that took over). Each tab also holds `<lockName>:alive:<id>` for
 * its life, and the leader `<lockName>:leader:<id>`, so any tab can check with `navigator.locks`
 * whether a message's sender really leads, or really left: a BroadcastChannel message carries no
 * sender, the lock manager does.
 */
export class LeaderElection {
  /** this tab holds the lock (the lock manager's fact; the role is the cross-tab reducer's, told by `lead` and `lost`) */
  #held = false
  #releaseMain: (() => void) | undefined
  #releaseLeader: (() => void) | undefined
  #releaseAlive: (() => void) | undefined
  /** the lock request waiting in the queue, if any */
  #queued: AbortController | undefined
  #stealing = false
  #closed = false
  /** the `whenGone` waits in the lock queue, aborted when this tab closes */
  readonly #waits = new Set<AbortController>()
  readonly #timers: Pick<Timers, 'set' | 'clear'>

  readonly #locks: LocksLike
  readonly #lockName: string
  readonly #id: string
  readonly #on: {
      /** this tab now holds the lock */
      lead(): void
      /** the lock's `:leader:` proof is held: the other tabs can be told */
      announce(): void
      /** this tab lost the lock (stolen) */
      lost(): void
    }

  constructor(
    locks: LocksLike,
    lockName: string,
    id: string,
    on: {
      /** this tab now holds the lock */
      lead(): void
      /** the lock's `:leader:` proof is held: the other tabs can be told */
      announce(): void
      /** this tab lost the lock (stolen) */
      lost(): void
    },
    timers: Pick<Timers, 'set' | 'clear'>) {
    this.#timers = timers
    this.#locks = locks
    this.#lockName = lockName
    this.#id = id
    this.#on = on
    this.#hold(`${lockName}:alive:${id}`, (release) => {
      this.#releaseAlive = release
    })
    this.#queue(false)
  }

  /** Takes the lock from a frozen or crashed holder. */
  steal(): void {
    this.#queue(true)
  }

  /**
   * Runs `then` once the locks confirm that `tab` holds the pool's lock (its `:leader:` lock is held
   * by the same client as the pool's lock), else `refused`.
   */
  whenLeader(tab: string, then: () => void, refused: () => void): void {
    // A Web Locks implementation without query() (none known) cannot check: claims are taken as they come.
    if (typeof this.#locks.query !== 'function') {
      then()
      return
    }
    void this.#leaderTab().then((holder) => {
      if (this.#closed) return
      if (holder === tab) then()
      else refused()
    })
  }

  /**
   * Runs `then` once `tab` has let go of its `:alive:` lock (it closed or crashed), or `refused` if it
   * still holds it after `waitMs`; without `waitMs` the wait ends only when the tab does (or this one
   * closes): a frozen page keeps its locks, a discarded or crashed one lets them go.
   */
  whenGone(tab: string, waitMs: number | undefined, then: () => void, refused: () => void): void {
    const controller = new AbortController()
    this.#waits.add(controller)
    const timer = waitMs === undefined ? undefined : this.#timers.set(() => controller.abort(), waitMs)
    this.#locks
      .request(`${this.#lockName}:alive:${tab}`, { signal: controller.signal }, () => {
        this.#timers.clear(timer)
        if (!this.#closed) then()
        return Promise.resolve()
      })
      .catch(() => {
        if (!this.#closed) refused()
      })
      .finally(() => this.#waits.delete(controller))
  }

  /** Lets go of every lock and the queue. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#releaseMain?.()
    this.#releaseLeader?.()
    this.#releaseAlive?.()
    this.#queued?.abort()
    for (const wait of this.#waits) wait.abort()
  }

  async #leaderTab(): Promise<string | undefined> {
    const held = (await this.#locks.query!().catch(() => ({ held: [] }))).held ?? []
    const main = held.find((l) => l.name === this.#lockName)
    if (!main) return undefined
    const prefix = `${this.#lockName}:leader:`
    const claims = held.filter((l) => l.name?.startsWith(prefix) && l.clientId === main.clientId)
    return claims.length === 1 ? claims[0]!.name!.slice(prefix.length) : undefined
  }

  /** Joins the queue for the lock (or takes it: `steal`); whoever holds it leads until it ends. */
  #queue(steal: boolean): void {
    if (this.#closed) return
    if (steal) {
      if (this.#stealing || this.#held) return
      this.#stealing = true
      this.#queued?.abort()
      this.#queued = undefined
    } else if (this.#queued || this.#held || this.#stealing) return
    const controller = steal ? undefined : new AbortController()
    this.#queued = controller
    let granted = false
    this.#locks
      .request(this.#lockName, controller ? { signal: controller.signal } : { steal: true }, () => {
        if (this.#queued === controller) this.#queued = undefined
        this.#stealing = false
        if (this.#closed) return Promise.resolve()
        granted = true
        this.#held = true
        this.#on.lead()
        // Announced once the `:leader:<id>` lock is held: that lock is how the other tabs check the claim.
        this.#hold(`${this.#lockName}:leader:${this.#id}`, (release) => {
          if (!this.#held) {
            release()
            return
          }
          this.#releaseLeader = release
          this.#on.announce()
        })
        return new Promise<void>((resolve) => {
          this.#releaseMain = resolve
        })
      })
      .catch(() => {
        // Stolen by a tab that took over, or aborted (close, or our own steal replacing the queued request).
      })
      .finally(() => {
        if (controller && this.#queued === controller) this.#queued = undefined
        if (steal && !granted) this.#stealing = false
        if (granted) {
          this.#releaseMain = undefined
          this.#held = false
          this.#releaseLeader?.()
          this.#releaseLeader = undefined
          if (!this.#closed) this.#on.lost()
        }
        this.#queue(false)
      })
  }

  /** Takes a lock of this tab's own (granted at once: nobody else asks for it) and holds it until `release` is called. */
  #hold(name: string, granted: (release: () => void) => void): void {
    this.#locks
      // A tab closed before the lock came lets it go at once (it would otherwise be held for ever).
      .request(name, {}, () => new Promise<void>((resolve) => (this.#closed ? resolve() : granted(resolve))))
      .catch(() => {})
  }
}
