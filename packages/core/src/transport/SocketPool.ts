import type { ResolvedSolver } from '../config/types.js'
import { drivers } from '../protocol/drivers.js'
import type { ClientStats } from '../stream/ClientStats.js'
import type { ResolvedClientOptions } from '../stream/clientOptions.js'
import type { Address } from '../utils/address.js'
import { type Listener, ManagedSocket } from './ManagedSocket.js'
import { Timers } from './Timers.js'

/**
 * The shared pool: one {@link ManagedSocket} per driver socket key (enigma: url + channel + account;
 * rasa: url), refcounted by subscribers, released after `lingerMs`.
 */
export class SocketPool {
  private readonly sockets = new Map<string, ManagedSocket>()
  readonly timers = new Timers()
  private closed = false
  private unlistenNudges: (() => void) | undefined

  constructor(
    private readonly options: ResolvedClientOptions,
    readonly stats: ClientStats,
  ) {}

  /** Subscribes `listener` to `account` on the solver's socket; returns the release function (idempotent). */
  acquire(solver: ResolvedSolver, account: Address, listener: Listener): () => void {
    if (this.closed) {
      listener.event({ type: 'status', status: 'closed', attempt: 0, closeReason: 'client closed' })
      listener.complete()
      return () => {}
    }
    const driver = drivers[solver.notifications.protocol]
    // Solver identity is part of the key so every notification carries the right chainId/solverId,
    // even when two configured solvers point at the same URL.
    const key = `${solver.chainId} ${solver.solverId} ${driver.socketKey(solver.notifications, account)}`
    let socket = this.sockets.get(key)
    if (!socket) {
      socket = new ManagedSocket(key, driver, solver, {
        options: this.options,
        timers: this.timers,
        stats: this.stats,
        onGone: (gone) => this.forget(gone),
      })
      this.sockets.set(key, socket)
      this.stats.sockets = this.sockets.size
      this.listenNudges()
    }
    const owner = socket
    owner.add(account, listener)
    let released = false
    return () => {
      if (released) return
      released = true
      if (!owner.isGone) owner.remove(account, listener)
    }
  }

  /** Terminal close of every socket; later acquisitions get `closed` at once. */
  close(): void {
    this.closed = true
    for (const socket of [...this.sockets.values()]) socket.close()
  }

  private forget(socket: ManagedSocket): void {
    if (this.sockets.get(socket.key) === socket) this.sockets.delete(socket.key)
    this.stats.sockets = this.sockets.size
    if (this.sockets.size === 0) {
      this.unlistenNudges?.()
      this.unlistenNudges = undefined
    }
  }

  /** Browsers: dial at once when the network comes back or the page becomes visible. */
  private listenNudges(): void {
    if (this.unlistenNudges) return
    const target = globalThis as { addEventListener?: EventTarget['addEventListener']; removeEventListener?: EventTarget['removeEventListener'] }
    const doc = (globalThis as { document?: { visibilityState?: string; addEventListener?: EventTarget['addEventListener']; removeEventListener?: EventTarget['removeEventListener'] } }).document
    if (typeof target.addEventListener !== 'function' && typeof doc?.addEventListener !== 'function') return
    const nudge = () => {
      for (const socket of this.sockets.values()) socket.nudge()
    }
    const onVisible = () => {
      if (doc?.visibilityState === 'visible') nudge()
    }
    target.addEventListener?.('online', nudge)
    doc?.addEventListener?.('visibilitychange', onVisible)
    this.unlistenNudges = () => {
      target.removeEventListener?.('online', nudge)
      doc?.removeEventListener?.('visibilitychange', onVisible)
    }
  }
}
