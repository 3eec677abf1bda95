import type { ResolvedSolver } from '../config/types.js'
import type { AnyProtocolWire } from '../protocol/protocols.js'
import { protocols } from '../protocol/protocols.js'
import type { Address } from '../utils/address.js'
import { DialGate } from './DialGate.js'
import type { LifecycleEvent } from './Lifecycle.js'
import { type Route, type RouterContext, SocketRouter } from './SocketRouter.js'
import { Timers } from './Timers.js'
import type { SocketSnapshot, StreamSnapshot } from './SocketSnapshot.js'
import type { Listener } from './TransportEvent.js'
import type { TransportOptions } from './TransportOptions.js'
import type { TransportStats } from './TransportStats.js'

/**
 * The sockets of one solver endpoint. Every account has one socket: enigma one each, a rasa hub
 * up to `maxAccountsPerHub` of them (more hubs beyond that).
 */
class Endpoint {
  readonly byAccount = new Map<string, SocketRouter>()
  readonly routers = new Set<SocketRouter>()
  /** the hub new accounts go to while it has room */
  #filling: SocketRouter | undefined

  readonly #capacity: number
  readonly #ctx: RouterContext

  constructor(
    readonly module: AnyProtocolWire,
    readonly solver: ResolvedSolver,
    capacity: number,
    ctx: RouterContext) {
    this.#capacity = capacity
    this.#ctx = ctx
  }

  routerFor(key: string): SocketRouter {
    // One unbounded hub carries every account: no per-account index to keep (subscribing 10,000 accounts stays cheap).
    if (this.#capacity === Number.POSITIVE_INFINITY && this.#filling) return this.#filling
    const existing = this.byAccount.get(key)
    if (existing) return existing
    let router: SocketRouter | undefined
    if (this.module.multiplexed) {
      if (this.#filling && this.#filling.routes.size < this.#capacity) router = this.#filling
      else for (const candidate of this.routers) if (candidate.routes.size < this.#capacity) router = candidate
    }
    if (!router) {
      router = new SocketRouter(this.module, this.solver, this.#ctx)
      this.routers.add(router)
      this.#ctx.onCreated(router)
    }
    this.#filling = router
    if (this.#capacity !== Number.POSITIVE_INFINITY) this.byAccount.set(key, router)
    return router
  }

  forgetAccount(router: SocketRouter, key: string): void {
    if (this.#capacity !== Number.POSITIVE_INFINITY && this.byAccount.get(key) === router) this.byAccount.delete(key)
  }

  forgetRouter(router: SocketRouter): void {
    this.routers.delete(router)
    if (this.#filling === router) this.#filling = undefined
  }
}

/**
 * Where a subscriber sits in the pool, written by `acquire` into the listener itself so a subscription
 * costs no release closure (subscribing 10,000 accounts stays cheap). Both undefined when not (or no longer) in the pool.
 */
export interface Lease {
  router: SocketRouter | undefined
  route: Route | undefined
}

/**
 * The shared pool: sockets by solver endpoint, refcounted by subscribers, released after `lingerMs`.
 * Solver identity is part of the endpoint, so every notification carries the right chainId/solverId
 * even when two configured solvers point at the same URL.
 */
export class SocketPool {
  /** keyed by the resolved solver object, which the config hands out once per solver */
  readonly #endpoints = new Map<ResolvedSolver, Endpoint>()
  readonly timers = new Timers()
  readonly #gate: DialGate
  #closed = false
  #unlistenLifecycle: (() => void) | undefined
  #hiddenAt: number | undefined

  constructor(
    readonly options: TransportOptions,
    readonly stats: TransportStats,
  ) {
    this.#gate = new DialGate(options.maxConcurrentDials)
  }

  get isClosed(): boolean {
    return this.#closed
  }

  /** Subscribes `listener` to `account` on the solver's socket; {@link release} undoes it. */
  acquire(solver: ResolvedSolver, account: Address, listener: Listener & Lease): void {
    if (this.#closed) {
      listener.event({ type: 'status', status: 'closed', attempt: 0, closeReason: 'client closed' })
      listener.complete()
      return
    }
    const endpoint = this.#endpoints.get(solver) ?? this.#createEndpoint(solver)
    const key = account.toLowerCase()
    const router = endpoint.routerFor(key)
    const route = router.add(account, key, listener)
    listener.router = router
    listener.route = route
    router.announce(route, listener)
  }

  /** Takes a listener out of the pool; idempotent. Its account (then socket) goes after `lingerMs`. */
  release(listener: Listener & Lease): void {
    const { router, route } = listener
    listener.router = undefined
    listener.route = undefined
    if (router && route && !router.isGone) router.remove(route, listener)
  }

  /** The last inspector left: every stream forgets what it recorded and records nothing more. */
  forgetInspection(): void {
    for (const endpoint of this.#endpoints.values()) {
      for (const router of endpoint.routers) {
        for (const route of router.routes.values()) for (const l of route.listeners) (l as Partial<{ forgetInspection(): void }>).forgetInspection?.()
      }
    }
  }

  /** Every socket with its accounts and the resume streams among its subscribers (for `client.inspect()`). */
  inspect(): SocketSnapshot[] {
    const out: SocketSnapshot[] = []
    for (const endpoint of this.#endpoints.values()) {
      let n = 0
      for (const router of endpoint.routers) {
        const { status, attempt, closeCode, closeReason } = router.connection.statusEvent
        const streams: StreamSnapshot[] = []
        for (const route of router.routes.values()) {
          for (const l of route.listeners) {
            const inspectable = l as Partial<{ inspect(account: string): StreamSnapshot }>
            if (typeof inspectable.inspect === 'function') streams.push(inspectable.inspect(route.account))
          }
        }
        const { chainId, solverId, notifications } = endpoint.solver
        out.push({ key: `${chainId}/${solverId}#${n++}`, chainId, solverId, protocol: notifications.protocol, url: router.connection.shownUrl, state: status, attempt, closeCode, closeReason, accounts: [...router.routes.keys()], streams, drop: () => router.connection.redial('dropped from the devtools') })
      }
    }
    return out
  }

  /** Terminal close of every socket; later acquisitions get `closed` at once. */
  close(): void {
    this.#closed = true
    for (const endpoint of [...this.#endpoints.values()]) for (const router of [...endpoint.routers]) router.close('client closed')
  }

  #createEndpoint(solver: ResolvedSolver): Endpoint {
    const module = protocols[solver.notifications.protocol]
    const endpoint: Endpoint = new Endpoint(module, solver, module.multiplexed ? this.options.maxAccountsPerHub : 1, {
      options: this.options,
      timers: this.timers,
      stats: this.stats,
      gate: this.#gate,
      onCreated: () => {
        this.stats.sockets++
        this.#listenLifecycle()
      },
      onRouteGone: (router, key) => endpoint.forgetAccount(router, key),
      onGone: (router) => this.#forget(endpoint, router),
    })
    this.#endpoints.set(solver, endpoint)
    return endpoint
  }

  #forget(endpoint: Endpoint, router: SocketRouter): void {
    if (!endpoint.routers.has(router)) return
    endpoint.forgetRouter(router)
    this.stats.sockets--
    if (endpoint.routers.size === 0 && this.#endpoints.get(endpoint.solver) === endpoint) this.#endpoints.delete(endpoint.solver)
    if (this.stats.sockets === 0) {
      this.#unlistenLifecycle?.()
      this.#unlistenLifecycle = undefined
    }
  }

  /** Listens to the environment only while sockets exist, so an idle client holds nothing. */
  #listenLifecycle(): void {
    if (this.#unlistenLifecycle || !this.options.lifecycle) return
    this.#unlistenLifecycle = this.options.lifecycle.subscribe((event) => this.#onLifecycle(event))
  }

  #onLifecycle(event: LifecycleEvent): void {
    if (this.#closed) return
    if (event === 'background') {
      this.#hiddenAt ??= Date.now()
      return
    }
    if (event === 'offline') return
    const hiddenFor = event === 'foreground' && this.#hiddenAt !== undefined ? Date.now() - this.#hiddenAt : 0
    if (event === 'foreground') this.#hiddenAt = undefined
    // Hidden longer than a heartbeat interval, asleep, or the network came back or changed: a socket
    // that cannot ping may be dead without knowing it.
    const suspect = event === 'wake' || event === 'online' || hiddenFor > (this.options.heartbeat ? this.options.heartbeat.intervalMs : 25_000)
    for (const connection of this.#connections()) {
      if (suspect && !connection.canPing) connection.redial(`${event === 'foreground' ? 'back after being hidden' : event}: replacing a socket that may have died meanwhile`)
      else connection.nudge()
    }
  }

  #connections(): SocketRouter['connection'][] {
    const out: SocketRouter['connection'][] = []
    for (const endpoint of this.#endpoints.values()) for (const router of endpoint.routers) out.push(router.connection)
    return out
  }
}
