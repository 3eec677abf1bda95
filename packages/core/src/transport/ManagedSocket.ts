import type { ResolvedSolver } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { DecodedFrame } from '../protocol/decodedFrame.js'
import { normalizeNotification } from '../protocol/normalizeNotification.js'
import type { ProtocolDriver } from '../protocol/ProtocolDriver.js'
import type { SocketStatus } from '../protocol/types.js'
import type { ClientStats } from '../stream/ClientStats.js'
import type { ResolvedClientOptions } from '../stream/clientOptions.js'
import type { NotificationEvent, StatusEvent } from '../stream/NotificationEvent.js'
import type { Address } from '../utils/address.js'
import { backoffDelay } from './backoffDelay.js'
import type { Timers } from './Timers.js'
import { OPEN, type WebSocketLike } from './WebSocketLike.js'

/** One subscriber of an account on a socket. */
export interface Listener {
  event(event: NotificationEvent): void
  complete(): void
}

/** The subscribers of one account on a socket; kept for `lingerMs` after the last one leaves. */
interface Route {
  readonly account: Address
  /** copy-on-write: the frame path iterates it without copying */
  listeners: readonly Listener[]
  /** included in the subscribe frame the server has now */
  sent: boolean
  /** when an unused route is dropped (Date.now() based); undefined while it has listeners */
  expiresAt: number | undefined
}

export interface SocketContext {
  options: ResolvedClientOptions
  timers: Timers
  stats: ClientStats
  /** called once when the socket is gone for good (released or terminal) */
  onGone(socket: ManagedSocket): void
}

const noop = () => {}
let decoder: TextDecoder | undefined

/**
 * One logical connection of the pool: dials, resubscribes on every open, reconnects with backoff,
 * watches heartbeats, and routes each inbound frame (parsed once, normalized once) to the
 * subscribers of its account. Protocol differences come from the driver only.
 */
export class ManagedSocket {
  private readonly routes = new Map<string, Route>()
  private ws: WebSocketLike | undefined
  private status: SocketStatus = 'connecting'
  private detail: Omit<StatusEvent, 'type' | 'status'> = { attempt: 0 }
  /** consecutive failed connections; reset only after a connection stayed open resetAfterMs */
  private failures = 0
  private lastSent: string | undefined
  private flushQueued = false
  private gone = false
  private connectTimer: ReturnType<typeof setTimeout> | undefined
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private resetTimer: ReturnType<typeof setTimeout> | undefined
  private pingTimer: ReturnType<typeof setTimeout> | undefined
  private pongTimer: ReturnType<typeof setTimeout> | undefined
  /** one sweep timer for every lingering route, so releases made together leave together */
  private lingerTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    readonly key: string,
    private readonly driver: ProtocolDriver,
    private readonly solver: ResolvedSolver,
    private readonly ctx: SocketContext,
  ) {}

  get isGone(): boolean {
    return this.gone
  }

  /** Adds a subscriber; it gets the current status at once, then every change. */
  add(account: Address, listener: Listener): void {
    const key = account.toLowerCase()
    let route = this.routes.get(key)
    const first = this.routes.size === 0 && this.ws === undefined && this.retryTimer === undefined
    if (route) {
      route.expiresAt = undefined
      route.listeners = [...route.listeners, listener]
    } else {
      route = { account, listeners: [listener], sent: false, expiresAt: undefined }
      this.routes.set(key, route)
      if (this.isOpen()) this.scheduleFlush()
    }
    this.ctx.stats.subscriptions++
    listener.event(this.statusEventFor(route))
    if (first && !this.gone) this.dial()
  }

  /** Removes a subscriber; the account (and then the socket) goes after `lingerMs` unless re-added. */
  remove(account: Address, listener: Listener): void {
    const route = this.routes.get(account.toLowerCase())
    if (!route?.listeners.includes(listener)) return
    route.listeners = route.listeners.filter((l) => l !== listener)
    this.ctx.stats.subscriptions--
    if (route.listeners.length > 0) return
    const lingerMs = this.ctx.options.lingerMs
    route.expiresAt = Date.now() + lingerMs
    if (lingerMs <= 0) this.sweep()
    else this.lingerTimer ??= this.ctx.timers.set(() => this.sweep(), lingerMs)
  }

  /** Dial now if waiting to retry (browser came online or page became visible). */
  nudge(): void {
    if (this.status === 'reconnecting' && this.retryTimer !== undefined) {
      this.retryTimer = this.ctx.timers.clear(this.retryTimer)
      this.dial()
    }
  }

  /** Client closed: every stream gets status `closed` and completes. */
  close(reason = 'client closed'): void {
    if (this.gone) return
    this.terminate({ closeReason: reason })
  }

  /** Drops every route whose linger is over, then sends one shrunk list (or closes when none is left). */
  private sweep(): void {
    this.lingerTimer = this.ctx.timers.clear(this.lingerTimer)
    const now = Date.now()
    let next = Number.POSITIVE_INFINITY
    let dropped = false
    for (const [key, route] of this.routes) {
      if (route.expiresAt === undefined || route.listeners.length > 0) continue
      if (route.expiresAt <= now) {
        this.routes.delete(key)
        dropped = true
      } else next = Math.min(next, route.expiresAt)
    }
    if (this.routes.size === 0) {
      this.shutdown()
      return
    }
    if (dropped && this.isOpen()) this.scheduleFlush()
    if (next !== Number.POSITIVE_INFINITY) this.lingerTimer = this.ctx.timers.set(() => this.sweep(), next - now)
  }

  private isOpen(): boolean {
    return this.ws !== undefined && this.status === 'open'
  }

  private statusEventFor(route: Route): StatusEvent {
    // A route joining an open hub is not subscribed until the coalesced frame goes out.
    const status = this.status === 'open' && !route.sent ? 'connecting' : this.status
    return { type: 'status', status, ...this.detail }
  }

  private setStatus(status: SocketStatus, detail: Omit<StatusEvent, 'type' | 'status'>): void {
    this.status = status
    this.detail = detail
    for (const route of [...this.routes.values()]) this.emitTo(route, this.statusEventFor(route))
  }

  private emitTo(route: Route, event: NotificationEvent): void {
    for (const listener of route.listeners) {
      try {
        listener.event(event)
      } catch {
        // A subscriber's own failure never reaches the socket or other subscribers.
      }
    }
  }

  private broadcast(event: NotificationEvent): void {
    for (const route of [...this.routes.values()]) this.emitTo(route, event)
  }

  private scheduleFlush(): void {
    if (this.flushQueued) return
    this.flushQueued = true
    // Coalesce every change made in this tick into one subscribe frame.
    queueMicrotask(() => {
      this.flushQueued = false
      if (this.isOpen()) this.sendSubscribe()
    })
  }

  private sendSubscribe(): void {
    const ws = this.ws!
    const routes = [...this.routes.values()]
    const text = this.driver.subscribeFrame(
      this.solver.notifications,
      routes.map((r) => r.account),
    )
    if (text !== this.lastSent) {
      try {
        ws.send(text)
      } catch (cause) {
        this.broadcast({ type: 'error', error: socketError(`could not send the subscribe frame to ${this.solver.notifications.url}`, cause) })
        return
      }
      this.lastSent = text
    }
    for (const route of routes) {
      if (route.sent) continue
      route.sent = true
      if (this.status === 'open') this.emitTo(route, this.statusEventFor(route))
    }
  }

  private dial(): void {
    const { options, timers } = this.ctx
    if (this.status !== 'connecting' || this.detail.attempt !== this.failures) {
      this.setStatus('connecting', { attempt: this.failures })
    }
    let ws: WebSocketLike
    try {
      ws = new options.WebSocket(this.solver.notifications.url)
    } catch (cause) {
      this.broadcast({ type: 'error', error: socketError(`could not open a WebSocket to ${this.solver.notifications.url}`, cause) })
      this.scheduleRetry({ closeReason: 'could not create the WebSocket' })
      return
    }
    this.ws = ws
    ws.onopen = () => this.onOpen(ws)
    ws.onmessage = (event) => {
      if (this.ws === ws) this.onFrame(event.data)
    }
    ws.onclose = (event) => {
      if (this.ws !== ws) return
      this.abandon(ws)
      this.scheduleRetry({ closeCode: event?.code, closeReason: event?.reason || undefined })
    }
    ws.onerror = (event) => {
      if (this.ws !== ws) return
      const message = (event as { message?: string })?.message
      this.broadcast({
        type: 'error',
        error: socketError(`WebSocket error on ${this.solver.notifications.url}${message ? `: ${message}` : ''}; the stream reconnects by itself`, event),
      })
    }
    this.connectTimer = timers.set(() => {
      if (this.ws !== ws) return
      this.abandon(ws)
      this.scheduleRetry({ closeReason: `connect timeout after ${options.connectTimeoutMs} ms` })
    }, options.connectTimeoutMs)
  }

  private onOpen(ws: WebSocketLike): void {
    if (this.ws !== ws) return
    const { options, timers } = this.ctx
    this.connectTimer = timers.clear(this.connectTimer)
    this.lastSent = undefined
    this.status = 'open'
    this.detail = { attempt: this.failures }
    // The subscribe frame goes first, before anything else, on every open.
    this.sendSubscribe()
    if (this.ws !== ws) return // a listener released everything while being told
    this.resetTimer = timers.set(() => {
      this.failures = 0
    }, options.resetAfterMs)
    this.startHeartbeat(ws)
  }

  private startHeartbeat(ws: WebSocketLike): void {
    const heartbeat = this.ctx.options.heartbeat
    if (!heartbeat || typeof ws.ping !== 'function' || typeof ws.on !== 'function') return
    const onPong = () => {
      this.pongTimer = this.ctx.timers.clear(this.pongTimer)
    }
    ws.on('pong', onPong)
    const beat = () => {
      if (this.ws !== ws) return
      try {
        ws.ping!()
      } catch {
        return
      }
      this.pongTimer ??= this.ctx.timers.set(() => {
        if (this.ws !== ws) return
        this.abandon(ws)
        this.scheduleRetry({ closeReason: `heartbeat timeout: no pong within ${heartbeat.timeoutMs} ms` })
      }, heartbeat.timeoutMs)
      this.pingTimer = this.ctx.timers.set(beat, heartbeat.intervalMs)
    }
    this.pingTimer = this.ctx.timers.set(beat, heartbeat.intervalMs)
  }

  private onFrame(data: unknown): void {
    const frames = this.ctx.stats.frames
    frames.received++
    const text = typeof data === 'string' ? data : toText(data)
    const decoded: DecodedFrame =
      text === undefined ? { kind: 'malformed', reason: 'binary frame' } : this.driver.decode(text, this.ctx.options.maxFrameBytes)
    if (decoded.kind !== 'frame') {
      frames.dropped[decoded.kind]++
      return
    }
    const route =
      decoded.address !== undefined
        ? this.routes.get(decoded.address.toLowerCase())
        : this.routes.size === 1
          ? this.routes.values().next().value
          : undefined
    if (route === undefined || route.listeners.length === 0) {
      frames.dropped.unrouted++
      return
    }
    const notification = normalizeNotification(decoded.raw, {
      protocol: this.driver.protocol,
      chainId: this.solver.chainId,
      solverId: this.solver.solverId,
      account: this.driver.accountOf(decoded, route.account),
      primaryIdentifier: decoded.primaryIdentifier,
      secondaryIdentifier: decoded.secondaryIdentifier,
    })
    frames.delivered++
    this.emitTo(route, Object.freeze({ type: 'notification', notification }))
  }

  private scheduleRetry(detail: { closeCode?: number | undefined; closeReason?: string | undefined }): void {
    const { options, timers, stats } = this.ctx
    for (const route of this.routes.values()) route.sent = false
    this.failures++
    if (this.failures > options.maxAttempts) {
      this.terminate({ ...detail, closeReason: detail.closeReason ?? `gave up after ${options.maxAttempts} reconnect attempts` })
      return
    }
    const retryInMs = backoffDelay(this.failures - 1, options, options.random)
    this.setStatus('reconnecting', { attempt: this.failures, retryInMs, ...definedOnly(detail) })
    if (this.gone || this.status !== 'reconnecting') return // released from inside a status callback
    this.retryTimer = timers.set(() => {
      this.retryTimer = undefined
      stats.reconnects++
      this.dial()
    }, retryInMs)
  }

  /** Stops listening to a socket and closes it; its late events are ignored. */
  private abandon(ws: WebSocketLike): void {
    const { timers } = this.ctx
    this.connectTimer = timers.clear(this.connectTimer)
    this.resetTimer = timers.clear(this.resetTimer)
    this.pingTimer = timers.clear(this.pingTimer)
    this.pongTimer = timers.clear(this.pongTimer)
    if (this.ws === ws) this.ws = undefined
    ws.onopen = noop
    ws.onmessage = noop
    ws.onclose = noop
    // Keep an error handler: Node's ws emits 'error' when a dial is aborted and throws without one.
    ws.onerror = noop
    try {
      if (ws.readyState === OPEN) ws.close(1000, 'released')
      else if (typeof ws.terminate === 'function') ws.terminate()
      else ws.close()
    } catch {
      // closing a socket that is already closing is fine
    }
  }

  /** Last subscriber gone: close quietly, no status to tell anyone. */
  private shutdown(): void {
    this.gone = true
    this.retryTimer = this.ctx.timers.clear(this.retryTimer)
    this.lingerTimer = this.ctx.timers.clear(this.lingerTimer)
    if (this.ws) this.abandon(this.ws)
    this.ctx.onGone(this)
  }

  /** Terminal: status `closed` to everyone, streams complete, socket gone. */
  private terminate(detail: { closeCode?: number | undefined; closeReason?: string | undefined }): void {
    this.gone = true
    this.retryTimer = this.ctx.timers.clear(this.retryTimer)
    this.lingerTimer = this.ctx.timers.clear(this.lingerTimer)
    if (this.ws) this.abandon(this.ws)
    this.setStatus('closed', { attempt: this.failures, ...definedOnly(detail) })
    const routes = [...this.routes.values()]
    this.routes.clear()
    for (const route of routes) {
      this.ctx.stats.subscriptions -= route.listeners.length
      const listeners = route.listeners
      route.listeners = []
      for (const listener of listeners) listener.complete()
    }
    this.ctx.onGone(this)
  }
}

function definedOnly<T extends Record<string, unknown>>(detail: T): Partial<T> {
  const out: Partial<T> = {}
  for (const key in detail) if (detail[key] !== undefined) out[key] = detail[key]
  return out
}

function socketError(message: string, cause: unknown): ServiceError {
  return new ServiceError('SOCKET', message, { cause })
}

function toText(data: unknown): string | undefined {
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    decoder ??= new TextDecoder()
    try {
      return decoder.decode(data as ArrayBuffer)
    } catch {
      return undefined
    }
  }
  return undefined
}
