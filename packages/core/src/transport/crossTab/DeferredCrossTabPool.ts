import type { ResolvedSolver } from '../../config/types.js'
import type { Address } from '../../utils/address.js'
import type { HistoryAnswer, HistoryAsk, HistoryReader, ListenerPool } from '../ListenerPool.js'
import type { Lease, SocketPool } from '../SocketPool.js'
import type { Listener } from '../TransportEvent.js'
import type { CrossTabPool, CrossTabStats } from './CrossTabPool.js'

type Held = Listener & Lease

/** The pool this stand-in hands over to: the cross-tab pool, or the local pool where it could not load. */
type RealPool = ListenerPool & Pick<CrossTabPool, 'claim' | 'isNotifier' | 'stats'>

/**
 * Stands in for the cross-tab pool until it is needed and while its code loads (a dynamic `import()`,
 * so an app without `crossTab` never downloads it). Like the socket pool, it is lazy: nothing loads,
 * beats or takes a lock until the first stream or `notifyOnce` claim, so a client that is made and
 * dropped (React StrictMode runs memo functions twice) costs nothing. Streams subscribed meanwhile
 * wait (no socket is opened in this tab), claims are kept, and everything is handed over once the pool
 * exists. Should the chunk fail to load, this tab keeps its own sockets.
 */
export class DeferredCrossTabPool implements ListenerPool {
  readonly timers: SocketPool['timers']
  /** not #private: the frozen-tab test reaches the pool through it */
  private real: RealPool | undefined
  readonly #waiting = new Map<Held, { solver: ResolvedSolver; account: Address }>()
  /** claims made before the pool loaded: key → withdrawals to call once it has */
  readonly #claims = new Map<symbol, { key: string; withdraw?: () => void }>()
  #closed = false
  #started = false

  readonly #local: SocketPool
  readonly #load: () => Promise<ListenerPool & Pick<CrossTabPool, 'claim' | 'isNotifier' | 'stats'>>
  readonly #warn: (message: string) => void
  /** this tab's own history reader, until the shared one is loaded (or when it could not be) */
  readonly #read: HistoryReader

  constructor(
    local: SocketPool,
    load: () => Promise<ListenerPool & Pick<CrossTabPool, 'claim' | 'isNotifier' | 'stats'>>,
    warn: (message: string) => void,
    read: HistoryReader) {
    this.#local = local
    this.#load = load
    this.#warn = warn
    this.#read = read
    this.timers = local.timers
  }

  /** Loads and starts the real pool, once, when something first needs it. */
  #start(): void {
    if (this.#started || this.#closed) return
    this.#started = true
    const local = this.#local
    const warn = this.#warn
    this.#load().then(
      (pool) => {
        if (this.#closed) {
          pool.close()
          return
        }
        this.#handOver(pool)
      },
      (error: unknown) => {
        warn(`crossTab could not be loaded (${(error as Error)?.message ?? String(error)}); this tab keeps its own sockets.`)
        if (!this.#closed) this.#handOver(local)
      },
    )
  }

  acquire(solver: ResolvedSolver, account: Address, listener: Held): void {
    if (this.real) this.real.acquire(solver, account, listener)
    else if (this.#closed) this.#local.acquire(solver, account, listener) // answers `closed` and completes
    else {
      // Nothing reaches it until the pool is there: `connecting` (a resume stream then backfills what
      // was published meanwhile, from when it subscribed).
      listener.event({ type: 'status', status: 'connecting', attempt: 0 })
      this.#waiting.set(listener, { solver, account })
      this.#start()
    }
  }

  release(listener: Held): void {
    if (this.real) this.real.release(listener)
    else this.#waiting.delete(listener)
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.real) {
      this.real.close()
      return
    }
    this.#local.close()
    for (const listener of this.#waiting.keys()) {
      listener.event({ type: 'status', status: 'closed', attempt: 0, closeReason: 'client closed' })
      listener.complete()
    }
    this.#waiting.clear()
  }

  /** History reads go to the shared pool once it exists (one reader per stream key per browser); this tab reads until then. */
  history(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer> {
    return this.real?.history ? this.real.history(solver, account, ask) : this.#read(solver, account, ask)
  }

  claim(key: string): () => void {
    if (this.real) return this.real.claim(key)
    const id = Symbol(key)
    this.#claims.set(id, { key })
    this.#start()
    return () => {
      const claim = this.#claims.get(id)
      this.#claims.delete(id)
      claim?.withdraw?.()
    }
  }

  isNotifier(key: string): boolean {
    return this.real ? this.real.isNotifier(key) : true
  }

  stats(): CrossTabStats {
    return this.real ? this.real.stats() : { role: 'follower', tabs: 1, dropped: 0, fallbacks: 0 }
  }

  #handOver(pool: ListenerPool): void {
    const real = pool as RealPool
    const handed: RealPool = typeof real.claim === 'function' ? real : { ...singleTab, acquire: pool.acquire.bind(pool), release: pool.release.bind(pool), close: pool.close.bind(pool), timers: pool.timers }
    this.real = handed
    for (const claim of this.#claims.values()) claim.withdraw = handed.claim(claim.key)
    const waiting = [...this.#waiting]
    this.#waiting.clear()
    for (const [listener, { solver, account }] of waiting) (handed.acquire as CrossTabPool['acquire'])(solver, account, listener, true)
  }
}

/** How this tab's own pool answers the cross-tab questions: as the only tab. */
const singleTab: Pick<CrossTabPool, 'claim' | 'isNotifier' | 'stats'> = {
  claim: () => () => {},
  isNotifier: () => true,
  stats: () => ({ role: 'leader', tabs: 1, dropped: 0, fallbacks: 0 }),
}
