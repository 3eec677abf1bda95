import type { ResolvedSolver } from '../config/types.js'
import type { ServiceError } from '../errors/ServiceError.js'
import type { WireFrame } from '../protocol/frame.js'
import { normalizeFrame } from '../protocol/normalizeNotification.js'
import type { AnyProtocolWire } from '../protocol/protocols.js'
import type { Address } from '../utils/address.js'
import { now } from './Diagnostics.js'
import { Connection, type ConnectionContext, type ConnectionHost } from './Connection.js'
import type { Notification } from '../protocol/types.js'
import type { Listener, TransportErrorEvent, TransportStatusEvent } from './TransportEvent.js'

/** The subscribers of one account on a socket; kept for `lingerMs` after the last one leaves. */
export interface Route {
  readonly account: Address
  /** lowercase account: the routing key */
  readonly key: string
  /** copy-on-write, so delivery iterates it without copying */
  listeners: readonly Listener[]
  /** included in the subscribe frame the server has now */
  sent: boolean
  /** when an unused route is dropped (Date.now() based); 0 while it has listeners */
  lingerUntil: number
}

export interface RouterContext extends ConnectionContext {
  /** a router was created for this endpoint */
  onCreated(router: SocketRouter): void
  /** a route left this router (its account may go to another socket) */
  onRouteGone(router: SocketRouter, key: string): void
  /** the router is gone for good (released or terminal) */
  onGone(router: SocketRouter): void
}

const NO_LISTENERS: readonly Listener[] = /* @__PURE__ */ Object.freeze([])
let decoder: TextDecoder | undefined

/**
 * The routing half of one socket: which accounts it carries, who listens to each, the subscribe
 * list (resent on every open, coalesced per tick on a hub), linger, and the frame path: parse once,
 * normalize once, deliver to every subscriber of the frame's account by one map lookup.
 */
export class SocketRouter implements ConnectionHost {
  readonly routes = new Map<string, Route>()
  readonly connection: Connection
  #gone = false
  /** routes added to an open socket whose subscribe frame has not gone out yet */
  #joining: Route[] = []
  #flushQueued = false
  #lastSent: string | undefined
  /** status event for routes waiting for the coalesced frame on an open hub */
  #joiningEvent: TransportStatusEvent | undefined
  /** FIFO of released routes; lingerMs is constant, so expiries are in order */
  #lingering: Array<{ route: Route; until: number }> = []
  #lingerHead = 0
  #lingerTimer: ReturnType<typeof setTimeout> | undefined
  /** the expiry every release of the current tick gets */
  #releaseUntil: number | undefined

  readonly #module: AnyProtocolWire
  readonly #solver: ResolvedSolver
  readonly #ctx: RouterContext
  /** how the diagnostics seam tells this socket apart (given at its first event there) */
  #diagnosticId: number | undefined

  constructor(
    module: AnyProtocolWire,
    solver: ResolvedSolver,
    ctx: RouterContext) {
    this.#module = module
    this.#solver = solver
    this.#ctx = ctx
    const { url } = solver.notifications
    const auth = ctx.options.auth
    const socketUrl = auth?.socketUrl
    this.connection = new Connection(url, this, ctx, {
      headers: solver.headers,
      protocol: solver.notifications.protocol,
      // Asked before every dial: a token renewed meanwhile is the one sent.
      resolve: socketUrl ? () => socketUrl.call(auth, { chainId: solver.chainId, solverId: solver.solverId, protocol: solver.notifications.protocol, url }) : undefined,
    })
  }

  get isGone(): boolean {
    return this.#gone
  }

  /**
   * Adds a subscriber of `account` (`key` its lowercase). Nothing is reported yet: the caller records
   * the lease first, then calls {@link announce}, so a listener releasing from its first report is found.
   */
  add(account: Address, key: string, listener: Listener): Route {
    let route = this.routes.get(key)
    if (route) {
      route.listeners = route.listeners.length === 0 ? [listener] : [...route.listeners, listener]
      route.lingerUntil = 0
    } else {
      route = { account, key, listeners: [listener], sent: false, lingerUntil: 0 }
      this.routes.set(key, route)
      if (this.connection.status === 'open') {
        this.#joining.push(route)
        this.#scheduleFlush()
      }
    }
    this.#ctx.stats.subscriptions++
    return route
  }

  /** The new subscriber hears the current state; the first one starts the connection, whose `connecting` report reaches it. */
  announce(route: Route, listener: Listener): void {
    if (this.connection.status === 'idle') this.connection.start()
    else listener.event(this.#statusFor(route))
  }

  /** Removes a subscriber; its account (and then the socket) goes after `lingerMs` unless re-added. */
  remove(route: Route, listener: Listener): void {
    const index = route.listeners.indexOf(listener)
    if (index < 0) return
    route.listeners = route.listeners.length === 1 ? NO_LISTENERS : route.listeners.filter((l) => l !== listener)
    this.#ctx.stats.subscriptions--
    if (route.listeners.length > 0) return
    const { lingerMs } = this.#ctx.options
    if (lingerMs <= 0) {
      this.#drop(route)
      this.#afterDrops()
      return
    }
    // Releases of one tick share one expiry, so their shrunk list goes out as one frame even when the
    // clock ticks between them (the same-tick coalescing subscriptions have).
    if (this.#releaseUntil === undefined) {
      this.#releaseUntil = Date.now() + lingerMs
      queueMicrotask(() => {
        this.#releaseUntil = undefined
      })
    }
    route.lingerUntil = this.#releaseUntil
    this.#lingering.push({ route, until: route.lingerUntil })
    this.#lingerTimer ??= this.#ctx.timers.set(() => this.#sweep(), lingerMs)
  }

  /** Client closed: every stream hears `closed` and completes. */
  close(reason: string): void {
    this.connection.close(reason)
  }

  // ConnectionHost

  subscribeFrame(): { text: string; accounts: number } | undefined {
    if (this.routes.size === 0) return undefined
    const accounts: Address[] = []
    for (const route of this.routes.values()) {
      accounts.push(route.account)
      route.sent = true
    }
    this.#joining = []
    const text = this.#module.subscribeFrame(this.#solver.notifications, accounts)
    this.#lastSent = text
    return { text, accounts: accounts.length }
  }

  onStatus(event: TransportStatusEvent): void {
    const d = this.#ctx.options.diagnostics
    if (d.active) d.emit({ type: 'socket', socket: (this.#diagnosticId ??= d.id()), protocol: this.#module.protocol, url: this.connection.shownUrl, destination: `${this.#solver.chainId}.${this.#solver.solverId}`, event })
    if (event.status === 'closed') {
      this.#finish(event)
      return
    }
    if (event.status !== 'open') {
      for (const route of this.routes.values()) route.sent = false
      this.#joining = []
      this.#lastSent = undefined
    }
    this.#joiningEvent = undefined
    for (const route of this.routes.values()) this.#emit(route, event)
  }

  onError(error: ServiceError): void {
    const d = this.#ctx.options.diagnostics
    if (d.active) d.emit({ type: 'error', code: error.code, protocol: this.#module.protocol, socket: (this.#diagnosticId ??= d.id()), cause: error.cause })
    const event: TransportErrorEvent = Object.freeze({ type: 'error', error })
    for (const route of this.routes.values()) this.#emit(route, event)
  }

  #dropFrame(reason: 'malformed' | 'control' | 'oversize' | 'unrouted'): void {
    this.#ctx.stats.frames.dropped[reason]++
    this.#ctx.options.logger?.repeated('debug', `drop ${reason} ${this.connection.shownUrl}`, 'frame dropped', { reason, url: this.connection.shownUrl })
  }

  onFrame(data: unknown): void {
    const frames = this.#ctx.stats.frames
    frames.received++
    const text = typeof data === 'string' ? data : toText(data)
    if (text === undefined) {
      this.#dropFrame('malformed')
      return
    }
    const module = this.#module
    const decoded = module.decode(text, this.#ctx.options.maxFrameBytes)
    if (decoded.kind !== 'frame') {
      this.#dropFrame(decoded.kind)
      return
    }
    const route = this.#routeOf(decoded)
    if (route === undefined || route.listeners.length === 0) {
      this.#dropFrame('unrouted')
      return
    }
    const solver = this.#solver
    const notification = normalizeFrame(decoded, module.protocol, solver.chainId, solver.solverId, route.account, 'live')
    frames.delivered++
    const d = this.#ctx.options.diagnostics
    const at = d.active ? now() : 0
    this.#deliver(route, notification)
    if (d.active) d.emit({ type: 'frame', notification, at })
  }

  // internals

  #routeOf(frame: WireFrame): Route | undefined {
    const address = frame.address
    if (address !== undefined) return this.routes.get(address) ?? this.routes.get(address.toLowerCase())
    // Only a one-account socket knows whose a frame without an account is; a hub never guesses.
    if (this.#module.multiplexed || this.routes.size !== 1) return undefined
    return this.routes.values().next().value
  }

  #statusFor(route: Route): TransportStatusEvent {
    const event = this.connection.statusEvent
    // A route joining an open hub is not subscribed until the coalesced frame that names it goes out.
    if (event.status !== 'open' || route.sent) return event
    this.#joiningEvent ??= Object.freeze({ ...event, status: 'connecting' })
    return this.#joiningEvent
  }

  #emit(route: Route, event: TransportStatusEvent | TransportErrorEvent): void {
    const listeners = route.listeners
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!.event(event)
      } catch {
        // A subscriber's own failure never reaches the socket or other subscribers.
      }
    }
  }

  #deliver(route: Route, notification: Notification): void {
    const listeners = route.listeners
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i]!.notification(notification)
      } catch {
        // as in emit
      }
    }
  }

  #scheduleFlush(): void {
    if (this.#flushQueued) return
    this.#flushQueued = true
    // Every change made in this tick goes out as one subscribe frame.
    queueMicrotask(() => {
      this.#flushQueued = false
      if (!this.#gone && this.connection.status === 'open') this.#flush()
    })
  }

  #flush(): void {
    const accounts: Address[] = []
    for (const route of this.routes.values()) accounts.push(route.account)
    const text = this.#module.subscribeFrame(this.#solver.notifications, accounts)
    if (text !== this.#lastSent) {
      if (!this.connection.send(text, accounts.length)) return
      this.#lastSent = text
    }
    const joined = this.#joining
    this.#joining = []
    const open = this.connection.statusEvent
    for (const route of joined) {
      if (route.sent || this.routes.get(route.key) !== route) continue
      route.sent = true
      if (open.status === 'open') this.#emit(route, open)
    }
  }

  #drop(route: Route): void {
    this.routes.delete(route.key)
    this.#ctx.onRouteGone(this, route.key)
  }

  /** After routes left: close when none is left, else send the shrunk list. */
  #afterDrops(): void {
    if (this.routes.size === 0) {
      this.#shutdown()
      return
    }
    if (this.connection.status === 'open') this.#scheduleFlush()
  }

  /** Drops every route whose linger is over, oldest first, then arms the timer for the next one. */
  #sweep(): void {
    this.#lingerTimer = undefined
    const now = Date.now()
    const queue = this.#lingering
    let dropped = false
    while (this.#lingerHead < queue.length) {
      const { route, until } = queue[this.#lingerHead]!
      if (until > now) break
      this.#lingerHead++
      // Stale entries (re-added, or released again later) are skipped.
      if (route.lingerUntil === until && route.listeners.length === 0 && this.routes.get(route.key) === route) {
        this.#drop(route)
        dropped = true
      }
    }
    if (this.#lingerHead > 1024 && this.#lingerHead * 2 > queue.length) {
      this.#lingering = queue.slice(this.#lingerHead)
      this.#lingerHead = 0
    }
    if (dropped) this.#afterDrops()
    if (this.#gone) return
    const next = this.#lingering[this.#lingerHead]
    if (next) this.#lingerTimer = this.#ctx.timers.set(() => this.#sweep(), Math.max(0, next.until - now))
  }

  /** Last subscriber gone: close quietly, nobody is left to tell. */
  #shutdown(): void {
    if (this.#gone) return
    this.#gone = true
    this.#lingerTimer = this.#ctx.timers.clear(this.#lingerTimer)
    this.connection.stop()
    this.#ctx.onGone(this)
  }

  /** Terminal: `closed` to everyone, then every stream completes. */
  #finish(event: TransportStatusEvent): void {
    if (this.#gone) return
    this.#gone = true
    this.#lingerTimer = this.#ctx.timers.clear(this.#lingerTimer)
    const routes = [...this.routes.values()]
    for (const route of routes) this.#emit(route, event)
    this.routes.clear()
    for (const route of routes) {
      const listeners = route.listeners
      route.listeners = NO_LISTENERS
      this.#ctx.stats.subscriptions -= listeners.length
      for (const listener of listeners) {
        try {
          listener.complete()
        } catch {
          // as in emit
        }
      }
      this.#ctx.onRouteGone(this, route.key)
    }
    this.#ctx.onGone(this)
  }
}

function toText(data: unknown): string | undefined {
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    decoder ??= new TextDecoder('utf-8', { fatal: true })
    try {
      return decoder.decode(data as ArrayBuffer)
    } catch {
      return undefined
    }
  }
  return undefined
}

