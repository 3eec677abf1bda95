import { ServiceError } from '../errors/ServiceError.js'
import { backoffDelay } from './backoffDelay.js'
import { type LostSocket, classifyClose } from './classifyClose.js'
import { LEVEL_OF_STATUS } from './Logger.js'
import type { DialGate } from './DialGate.js'
import type { Timers } from './Timers.js'
import type { SocketStatus, TransportStatusEvent } from './TransportEvent.js'
import { now } from './Diagnostics.js'
import type { TransportOptions } from './TransportOptions.js'
import type { TransportStats } from './TransportStats.js'
import { redactCause, redactText, redactUrl } from '../utils/redactUrl.js'
import { OPEN, type WebSocketLike } from './WebSocketLike.js'

/** What a connection needs from the router that owns it. */
export interface ConnectionHost {
  /** The subscribe frame to send first on an open socket. */
  subscribeFrame(): { text: string; accounts: number } | undefined
  /** Every state change, after the subscribe frame went out on `open`. */
  onStatus(event: TransportStatusEvent): void
  /** A frame came in (the connection settled its own state first: a close after it is not about the subscribe frame). */
  onFrame(data: unknown): void
  onError(error: ServiceError): void
}

export interface ConnectionContext {
  options: TransportOptions
  timers: Timers
  stats: TransportStats
  gate: DialGate
}

/** What each dial uses besides the URL: upgrade headers (Node), the URL asked anew before every dial (`auth.socketUrl`), the protocol (for diagnostics). */
interface ConnectionTarget {
  headers?: Readonly<Record<string, string>> | undefined
  resolve?: (() => string | Promise<string>) | undefined
  protocol?: string | undefined
}

type Handle = ReturnType<typeof setTimeout> | undefined
type Detail = Omit<TransportStatusEvent, 'type' | 'status'>

const noop = () => {}

/** What tells Node's ws apart from WHATWG sockets (which have neither). */
interface NodeWebSocketExtras {
  pause?: () => void
  on?: (event: 'message', listener: (data: { toString(): string }, isBinary: boolean) => void) => unknown
}
const IDLE_EVENT: TransportStatusEvent = /* @__PURE__ */ Object.freeze({ type: 'status', status: 'idle', attempt: 0 })

/** Sockets are replaced for a lifecycle event at most this often (see `Connection.redial`). */
const MIN_REDIAL_MS = 1_000

/**
 * One logical connection: dials (through the dial gate), sends the subscribe frame first on every
 * open, reconnects with backoff, watches heartbeats and the connect timeout, and classifies closes.
 * `enter` is the only writer of its state; every step that reports a state re-checks the epoch
 * afterwards, because a listener may release or close everything from inside that report. Once
 * `closed`, it never dials, sends or arms a timer again.
 */
export class Connection {
  #state: SocketStatus = 'idle'
  #event: TransportStatusEvent = IDLE_EVENT
  /** bumped by every state change; a step whose epoch moved on stops */
  #epoch = 0
  #ws: WebSocketLike | undefined
  /** consecutive failed connections; reset only after a connection stayed open resetAfterMs */
  #failures = 0
  #holdsSlot = false
  #cancelWait: (() => void) | undefined
  #connectTimer: Handle
  #retryTimer: Handle
  #resetTimer: Handle
  /** the deadline of an `auth.socketUrl` that has not answered yet */
  #authTimer: Handle
  #pingTimer: Handle
  #pongTimer: Handle
  #oversize = false
  /** when the last ping went (only while someone listens to the diagnostics) */
  #pingAt = 0
  /** when the current socket's dial began: replacements for lifecycle events stay a second apart (see `redial`) */
  #dialedAt = 0
  /** a replacement for a lifecycle event dials no earlier than this (a nudge does not hurry it) */
  #redialNotBefore = 0
  #lastSubscribe: { accounts: number; bytes: number } | undefined

  /** the URL as messages show it: userinfo and query values are `***` (tokens travel there) */
  readonly #shown: string
  /** credential refusals in this episode (a new one starts when a socket opens with another credential) */
  #refusals = 0
  /** the URL (its credential) the last refusal was for, and the one being dialed */
  #refusedWith: string | undefined
  #dialedWith: string | undefined
  /** the server refused the current socket's upgrade with this HTTP status */
  #refusedUpgrade: number | undefined

  readonly #host: ConnectionHost
  readonly #ctx: ConnectionContext
  /** what each dial uses: upgrade headers (Node), and the URL asked anew before every dial (`auth.socketUrl`) */
  readonly #target: ConnectionTarget

  constructor(
    readonly url: string,
    host: ConnectionHost,
    ctx: ConnectionContext,
    target: ConnectionTarget = {}) {
    this.#host = host
    this.#ctx = ctx
    this.#target = target
    this.#shown = redactUrl(url)
  }

  /** the URL as it may be shown: credentials and query values `***` */
  get shownUrl(): string {
    return this.#shown
  }

  get status(): SocketStatus {
    return this.#state
  }

  /** The current state as a (shared, frozen) status event. */
  get statusEvent(): TransportStatusEvent {
    return this.#event
  }

  /** Whether this socket is watched by protocol pings (Node ws); others cannot notice a dead link by themselves. */
  get canPing(): boolean {
    const ws = this.#ws
    return this.#ctx.options.heartbeat !== false && ws !== undefined && typeof ws.ping === 'function' && typeof ws.on === 'function'
  }

  /** idle → connecting. */
  start(): void {
    if (this.#state === 'idle') this.#dial()
  }

  /** Sends on the open socket; returns whether it went out. A hub frame is remembered for close classification. */
  send(text: string, accounts?: number): boolean {
    const ws = this.#ws
    if (this.#state !== 'open' || ws === undefined) return false
    try {
      ws.send(text)
    } catch (cause) {
      this.#sendFailed(ws, cause, '')
      return false
    }
    this.#lastSubscribe = accounts === undefined ? undefined : { accounts, bytes: text.length }
    return true
  }

  /**
   * Waiting to retry: dial now (the network is back, the page is visible) — unless a replacement for a
   * lifecycle event is waiting out its second (see `redial`): then it stays put.
   */
  nudge(): void {
    if (this.#state !== 'reconnecting' || this.#retryTimer === undefined) return
    if (this.#redialNotBefore > Date.now()) return
    this.#retryTimer = this.#ctx.timers.clear(this.#retryTimer)
    this.#ctx.stats.reconnects++
    this.#dial()
  }

  /**
   * Replaces the socket, whatever its state, when it may be dead without knowing (after sleep, on another
   * network). The suspect socket is let go at once: what it still carries may come after frames its link
   * lost, and would move a resume stream's watermark past them. The new socket is dialed at most once a
   * second (a network that flaps, 165 `online` in 4 s, would otherwise replace it each time and make every
   * resume stream backfill each time).
   */
  redial(reason: string): void {
    if (this.#state === 'open' && this.#ws) {
      this.#redialNotBefore = this.#dialedAt + MIN_REDIAL_MS
      this.#lost(this.#ws, { cause: 'dead', reason, oversize: false, afterSubscribe: undefined }, this.#redialNotBefore - Date.now())
      return
    }
    // Waiting to retry: dial now (not a replacement).
    this.nudge()
  }

  /** Released: quiet and terminal (nobody is left to tell). */
  stop(): void {
    if (this.#state === 'closed') return
    this.#enter('closed', { attempt: this.#failures, closeReason: 'released' }, false)
    this.#teardown(true)
  }

  /** Terminal with a `closed` report to everyone (client closed). */
  close(reason: string): void {
    if (this.#state === 'closed') return
    this.#finish({ attempt: this.#failures, closeReason: reason }, true)
  }

  /**
   * The only writer of the state. Returns false when a listener moved the connection on meanwhile.
   * `report: false` (a release: nobody is left to tell) changes the state without an event.
   */
  #enter(state: SocketStatus, detail: Detail, report = true): boolean {
    const epoch = ++this.#epoch
    // Counted here, where the state changes, so the counts by state always add up.
    const counts = this.#ctx.stats.socketStatus
    if (this.#state in counts) counts[this.#state as keyof typeof counts]--
    if (state in counts) counts[state as keyof typeof counts]++
    this.#state = state
    this.#event = Object.freeze({ type: 'status', status: state, ...detail })
    const logger = this.#ctx.options.logger
    // Dials of a socket that is down repeat for as long as it is: summed up once a second.
    if (state === 'connecting' || state === 'reconnecting') logger?.repeated(LEVEL_OF_STATUS[state], `${state} ${this.#shown}`, `socket ${state}`, { url: this.#shown, ...detail })
    else if (logger) {
      // Open or closed: the dials are over, so the next one is logged at once.
      logger.settle(`connecting ${this.#shown}`)
      logger.settle(`reconnecting ${this.#shown}`)
      logger.log(LEVEL_OF_STATUS[state], `socket ${state}`, { url: this.#shown, ...detail })
    }
    if (report) this.#host.onStatus(this.#event)
    return this.#epoch === epoch
  }

  #dial(): void {
    this.#dialedAt = Date.now()
    if (!this.#enter('connecting', { attempt: this.#failures })) return
    this.#connect()
  }

  /**
   * Asks for the URL to dial (auth.socketUrl, sync or async) before a dial slot is taken: the gate
   * bounds socket handshakes only, so one solver's slow credentials never delay another solver's dial.
   * The callback gets connectTimeoutMs from its call; then the connection backs off.
   */
  #connect(): void {
    const epoch = this.#epoch
    const resolve = this.#target.resolve
    if (!resolve) {
      this.#handshake(this.url)
      return
    }
    let next: string | Promise<string>
    try {
      next = resolve()
    } catch (cause) {
      this.#authFailed(cause)
      return
    }
    if (typeof next === 'string') {
      this.#handshake(next)
      return
    }
    const { timers, options } = this.#ctx
    this.#authTimer = timers.set(() => {
      this.#authTimer = undefined
      if (this.#epoch === epoch) this.#authFailed(new Error(`no answer within connectTimeoutMs (${options.connectTimeoutMs} ms)`))
    }, options.connectTimeoutMs)
    Promise.resolve(next).then(
      (url) => {
        if (this.#epoch !== epoch || this.#authTimer === undefined) return
        this.#authTimer = timers.clear(this.#authTimer)
        this.#handshake(url)
      },
      (cause: unknown) => {
        if (this.#epoch !== epoch || this.#authTimer === undefined) return
        this.#authTimer = timers.clear(this.#authTimer)
        this.#authFailed(cause)
      },
    )
  }

  /** Opens the socket once a dial slot is free (at once when one is). */
  #handshake(url: string): void {
    const go = () => {
      this.#cancelWait = undefined
      this.#holdsSlot = true
      this.#open(url)
    }
    if (this.#ctx.gate.tryEnter()) go()
    else this.#cancelWait = this.#ctx.gate.wait(go)
  }

  #authFailed(cause: unknown): void {
    const epoch = this.#epoch
    this.#leaveGate()
    this.#host.onError(
      new ServiceError('AUTH', `auth.socketUrl failed for ${this.#shown}: ${redactText((cause as Error)?.message ?? String(cause))}; retrying with backoff. Fix the callback.`, {
        cause: redactCause(cause),
      }),
    )
    if (this.#epoch === epoch) this.#lost(undefined, { cause: 'local', reason: 'auth.socketUrl failed', oversize: false, afterSubscribe: undefined })
  }

  #open(url: string): void {
    const { options, timers } = this.#ctx
    const epoch = this.#epoch
    let ws: WebSocketLike
    this.#refusedUpgrade = undefined
    this.#dialedWith = url
    try {
      ws = options.createWebSocket(url, this.#target.headers)
    } catch (cause) {
      this.#leaveGate()
      this.#host.onError(new ServiceError('SOCKET', `Could not open a WebSocket to ${this.#shown}; retrying. Check the configured URL.`, { cause: redactCause(cause) }))
      if (this.#epoch === epoch) this.#lost(undefined, { cause: 'local', reason: 'could not create the WebSocket', oversize: false, afterSubscribe: undefined })
      return
    }
    this.#ws = ws
    this.#oversize = false
    this.#lastSubscribe = undefined
    ws.onopen = () => {
      if (this.#ws === ws) this.#opened(ws)
    }
    const node = ws as NodeWebSocketExtras
    if (typeof node.pause === 'function' && typeof node.on === 'function') {
      // Node's ws: its own 'message' event skips the MessageEvent its onmessage shim allocates per frame (the CPU per frame at 10,000 accounts is what counts).
      node.on('message', (data: { toString(): string }, isBinary: boolean) => {
        if (this.#ws !== ws) return
        this.#lastSubscribe = undefined
        this.#host.onFrame(isBinary ? data : data.toString())
      })
    } else {
      ws.onmessage = (event) => {
        if (this.#ws !== ws) return
        this.#lastSubscribe = undefined
        this.#host.onFrame(event.data)
      }
    }
    ws.onclose = (event) => {
      if (this.#ws !== ws) return
      this.#lost(ws, {
        cause: 'server',
        code: event?.code,
        // A server's close reason is its text, shown in status events, logs and diagnostics: redacted like errors.
        reason: event?.reason ? redactText(event.reason) : undefined,
        oversize: this.#oversize,
        afterSubscribe: this.#lastSubscribe,
        refusedUpgrade: this.#refusedUpgrade,
      })
    }
    ws.onerror = (event) => {
      if (this.#ws === ws) this.#errored(event)
    }
    this.#connectTimer = timers.set(() => {
      this.#connectTimer = undefined
      if (this.#ws === ws) this.#lost(ws, { cause: 'dead', reason: `connect timeout after ${options.connectTimeoutMs} ms`, oversize: false, afterSubscribe: undefined })
    }, options.connectTimeoutMs)
  }

  #opened(ws: WebSocketLike): void {
    this.#connectTimer = this.#ctx.timers.clear(this.#connectTimer)
    this.#leaveGate()
    // The subscribe frame goes first, before the socket is reported open.
    const frame = this.#host.subscribeFrame()
    if (frame) {
      try {
        ws.send(frame.text)
      } catch (cause) {
        this.#sendFailed(ws, cause, 'the subscribe frame ')
        return
      }
      this.#lastSubscribe = { accounts: frame.accounts, bytes: frame.text.length }
    }
    // Open with another credential than the refused one (a rotated token): a later refusal is a new episode.
    if (this.#dialedWith !== this.#refusedWith) this.#refusals = 0
    if (!this.#enter('open', { attempt: this.#failures })) return
    this.#resetTimer = this.#ctx.timers.set(() => {
      this.#resetTimer = undefined
      this.#failures = 0
      this.#refusals = 0
    }, this.#ctx.options.resetAfterMs)
    this.#startHeartbeat(ws)
  }

  /**
   * A send threw. Usually the socket died under it: it is replaced. On Cloudflare Workers a socket
   * belongs to the request that opened it, and a client kept at module scope and used by the next
   * request throws on every send: replacing the socket would loop for ever, so that ends the streams
   * at once with `CROSS_REQUEST`.
   */
  #sendFailed(ws: WebSocketLike, cause: unknown, what: string): void {
    const epoch = this.#epoch
    if (/on behalf of a different request/i.test(String((cause as Error)?.message))) {
      this.#host.onError(
        new ServiceError(
          'CROSS_REQUEST',
          `Could not send ${what}to ${this.#shown}: a Cloudflare Workers socket belongs to the request that opened it. Create the client in each request, or keep it in a Durable Object; its streams end closed.`,
          { cause: redactCause(cause) },
        ),
      )
      if (this.#epoch === epoch) this.#finish({ attempt: this.#failures, closeReason: 'socket of another request' }, false)
      return
    }
    this.#host.onError(new ServiceError('SOCKET', `Could not send ${what}to ${this.#shown}; the socket is replaced.`, { cause: redactCause(cause) }))
    if (this.#ws === ws) this.#lost(ws, { cause: 'dead', oversize: false, afterSubscribe: undefined })
  }

  #errored(event: unknown): void {
    const error = (event as { error?: { code?: string } })?.error
    // Node ws refusing a frame over maxPayload: it closes the socket next; the close reports it.
    if (error?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      this.#oversize = true
      return
    }
    const message = (event as { message?: string })?.message
    // Node's ws names the status of a refused upgrade; a 401/403 is about credentials (the close reports it).
    const refused = /Unexpected server response: (401|403)\b/.exec(message ?? '')
    if (refused) {
      this.#refusedUpgrade = Number(refused[1])
      return
    }
    this.#host.onError(
      new ServiceError('SOCKET', `WebSocket error on ${this.#shown}${message ? `: ${redactText(message)}` : ''}; the stream reconnects by itself`, {
        cause: redactCause((event as { error?: unknown })?.error ?? event),
      }),
    )
  }

  #startHeartbeat(ws: WebSocketLike): void {
    const { heartbeat } = this.#ctx.options
    if (!heartbeat || typeof ws.ping !== 'function' || typeof ws.on !== 'function') return
    const { timers } = this.#ctx
    ws.on('pong', () => {
      if (this.#ws === ws) this.#pongTimer = timers.clear(this.#pongTimer)
      const d = this.#ctx.options.diagnostics
      if (d.active) d.emit({ type: 'heartbeat', protocol: this.#target.protocol!, rttMs: now() - this.#pingAt })
    })
    const beat = () => {
      this.#pingTimer = undefined
      if (this.#ws !== ws) return
      try {
        ws.ping!()
      } catch {
        return
      }
      this.#pingAt = now()
      this.#pongTimer ??= timers.set(() => {
        this.#pongTimer = undefined
        if (this.#ws === ws) {
          this.#lost(ws, { cause: 'dead', reason: `heartbeat timeout: no pong within ${heartbeat.timeoutMs} ms`, oversize: false, afterSubscribe: undefined })
        }
      }, heartbeat.timeoutMs)
      this.#pingTimer = timers.set(beat, heartbeat.intervalMs)
    }
    this.#pingTimer = timers.set(beat, heartbeat.intervalMs)
  }

  /**
   * The socket is gone (or never came): retry with backoff (a replacement for a lifecycle event: in
   * `notBeforeMs`), or end, as the close policy says.
   */
  #lost(ws: WebSocketLike | undefined, lost: LostSocket, notBeforeMs?: number): void {
    const { options, timers, stats } = this.#ctx
    const epoch = this.#epoch
    if (ws) this.#abandon(ws, lost.cause === 'dead')
    const verdict = classifyClose(lost, { url: this.#shown, maxFrameBytes: options.maxFrameBytes, shouldRetry: options.shouldRetry })
    if (verdict.refusal) {
      this.#refused(verdict.refusal, lost)
      return
    }
    if (verdict.oversize) {
      stats.frames.received++
      stats.frames.dropped.oversize++
    }
    if (verdict.error) {
      this.#host.onError(verdict.error)
      if (this.#epoch !== epoch) return
    }
    // An oversize refusal is this side closing with 1009 (message too big), whatever the close event says.
    const detail = verdict.oversize
      ? { closeCode: 1009, closeReason: `a frame over maxFrameBytes (${options.maxFrameBytes} bytes)` }
      : { closeCode: lost.code, closeReason: lost.reason }
    if (!verdict.retry) {
      this.#finish({ attempt: this.#failures, ...defined(detail) }, false)
      return
    }
    this.#failures++
    if (this.#failures > options.maxAttempts) {
      this.#finish({ attempt: this.#failures, ...defined({ ...detail, closeReason: lost.reason ?? `gave up after ${options.maxAttempts} reconnect attempts` }) }, false)
      return
    }
    // A replacement for a lifecycle event is no failure of the network: it waits out its second, not a backoff.
    const retryInMs = notBeforeMs === undefined ? backoffDelay(this.#failures - 1, options, options.random) : Math.max(0, notBeforeMs)
    if (!this.#enter('reconnecting', { attempt: this.#failures, retryInMs, ...defined(detail) })) return
    this.#retryTimer = timers.set(() => {
      this.#retryTimer = undefined
      stats.reconnects++
      this.#dial()
    }, retryInMs)
  }

  /**
   * The server refused this client's credentials. The first refusal of an episode re-dials at once
   * (asking `auth.socketUrl` again: a rotated token is picked up). The same credential refused twice
   * ends the streams `closed` with `UNAUTHORIZED` (at most two dials: no hammering); a refusal of a
   * credential that changed meanwhile (tokens rotating faster than a dial) is an `UNAUTHORIZED` error
   * event and a re-dial with backoff. A socket that opens with a new credential starts a new episode.
   */
  #refused(what: string, lost: LostSocket): void {
    const detail = defined({ closeCode: lost.code, closeReason: lost.reason })
    const credential = this.#dialedWith
    const sameAgain = this.#refusals > 0 && credential === this.#refusedWith
    this.#refusedWith = credential
    if (this.#refusals++ === 0) {
      if (!this.#enter('reconnecting', { attempt: this.#failures, retryInMs: 0, ...detail })) return
      this.#retryTimer = this.#ctx.timers.set(() => {
        this.#retryTimer = undefined
        this.#ctx.stats.reconnects++
        this.#dial()
      }, 0)
      return
    }
    const epoch = this.#epoch
    if (!sameAgain) {
      this.#host.onError(
        new ServiceError('UNAUTHORIZED', `${this.#shown} ${what} again with a new credential; re-dialing with backoff. If it repeats, renew the credentials (auth.socketUrl, the config's headers).`),
      )
      if (this.#epoch === epoch) this.#lost(undefined, { cause: 'local', reason: `credentials refused: ${what}`, oversize: false, afterSubscribe: undefined })
      return
    }
    this.#host.onError(
      new ServiceError(
        'UNAUTHORIZED',
        `${this.#shown} ${what} again after a re-dial with the same credentials (missing, wrong or expired): its streams end closed. Renew them (auth.socketUrl, the config's headers) and subscribe again.`,
      ),
    )
    if (this.#epoch !== epoch) return
    this.#finish({ attempt: this.#failures, ...detail }, false)
  }

  /** Terminal: tear everything down first, then report `closed` once. */
  #finish(detail: Detail, politely: boolean): void {
    this.#teardown(politely)
    this.#enter('closed', detail)
  }

  #teardown(politely: boolean): void {
    this.#retryTimer = this.#ctx.timers.clear(this.#retryTimer)
    this.#authTimer = this.#ctx.timers.clear(this.#authTimer)
    this.#cancelWait?.()
    this.#cancelWait = undefined
    if (this.#ws) this.#abandon(this.#ws, !politely)
  }

  /** Stops listening to a socket and closes it; its late events are ignored. */
  #abandon(ws: WebSocketLike, dead: boolean): void {
    const { timers } = this.#ctx
    this.#connectTimer = timers.clear(this.#connectTimer)
    this.#resetTimer = timers.clear(this.#resetTimer)
    this.#pingTimer = timers.clear(this.#pingTimer)
    this.#pongTimer = timers.clear(this.#pongTimer)
    this.#leaveGate()
    if (this.#ws === ws) this.#ws = undefined
    ws.onopen = noop
    ws.onmessage = noop
    ws.onclose = noop
    // Keep an error handler: Node's ws emits 'error' when a dial is aborted and throws without one.
    ws.onerror = noop
    try {
      // An open, live socket gets a close frame; then (where possible) the TCP connection is cut at
      // once, so a dead link never holds the process for ws's 30 s closing handshake.
      if (!dead && ws.readyState === OPEN) ws.close(1000, 'released')
      if (typeof ws.terminate === 'function') ws.terminate()
      else if (dead || ws.readyState !== OPEN) ws.close()
    } catch {
      // closing a socket that is already closing is fine
    }
  }

  #leaveGate(): void {
    if (!this.#holdsSlot) return
    this.#holdsSlot = false
    this.#ctx.gate.leave()
  }
}

function defined<T extends Record<string, unknown>>(detail: T): Partial<T> {
  const out: Partial<T> = {}
  for (const key in detail) if (detail[key] !== undefined) out[key] = detail[key]
  return out
}
