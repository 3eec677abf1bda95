import type { Logger } from '../transport/Logger.js'
import type { AuthOptions } from '../config/auth.js'
import type { NotificationsConfig, NotificationsConfigInput } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import { DEFAULT_MAX_FRAME_BYTES } from '../protocol/parseNotificationFrame.js'
import { browserLifecycle } from '../transport/browserLifecycle.js'
import { Diagnostics } from '../transport/Diagnostics.js'
import { retryAllButRefusals } from '../transport/classifyClose.js'
import { safeLogger } from '../transport/SafeLogger.js'
import { defaultWebSocket } from '../transport/defaultWebSocket.js'
import type { Lifecycle } from '../transport/Lifecycle.js'
import type { SocketClose, TransportOptions } from '../transport/TransportOptions.js'
import type { WebSocketConstructor } from '../transport/WebSocketLike.js'
import { describe } from '../utils/address.js'
import { MAX_TIMEOUT_MS } from '../utils/setLongTimeout.js'

/**
 * Options of the live client; each default is in the table of docs/architecture.md, "Connection".
 *
 * @example
 * createNotificationsClient({ config, lingerMs: 5_000, reconnect: { maxAttempts: 20 } })
 */
export interface NotificationsClientOptions<C extends NotificationsConfigInput = NotificationsConfigInput> {
  config: NotificationsConfig<C>
  /** credentials that change: headers per history request attempt, the socket URL per dial (sync or async) */
  auth?: AuthOptions | undefined
  reconnect?: {
    /** first retry delay (500) */
    baseDelayMs?: number
    /** cap of the exponential delay (10,000) */
    maxDelayMs?: number
    /** retries before the status becomes `closed` (Infinity) */
    maxAttempts?: number
    /** the attempt counter resets only after a socket stayed open this long (5,000) */
    resetAfterMs?: number
    /** whether a server close is retried; default: all but 1008 (policy violation) and 1003 (unsupported data) */
    shouldRetry?: (close: SocketClose) => boolean
  }
  /** a dial that has not opened by then is abandoned and retried (10,000) */
  connectTimeoutMs?: number
  /** protocol pings where the WebSocket implementation supports them (Node `ws`); `false` disables */
  heartbeat?: { intervalMs?: number; timeoutMs?: number } | false
  /** how long a released socket (or rasa address) is kept for a quick re-subscribe (2,000) */
  lingerMs?: number
  /** larger inbound frames are dropped unparsed (1,048,576) */
  maxFrameBytes?: number
  /** rasa: accounts per hub socket; beyond it an endpoint opens more hubs (Infinity) */
  maxAccountsPerHub?: number
  /** dials in flight at once; the rest wait their turn instead of stampeding the server (64) */
  maxConcurrentDials?: number
  /** any WHATWG-compatible constructor; default `isomorphic-ws` (on Node with `maxPayload: maxFrameBytes`) */
  WebSocket?: WebSocketConstructor
  /** source of foreground/background/online/offline/wake events; browsers get one by default, `false` disables */
  lifecycle?: Lifecycle | false
  /** jitter source in [0, 1); injectable for deterministic tests */
  random?: () => number
  /**
   * Browsers: one tab holds the sockets for every tab of the origin and relays each stream's events to
   * the tabs that asked (Web Locks + BroadcastChannel; `name` separates independent groups). Elsewhere
   * it does nothing and says so once.
   */
  crossTab?: boolean | { name?: string | undefined } | undefined
  /** structured events (dials, opens, closes, backfills, dropped frames, cross-tab roles); silent by default, `console` works */
  logger?: Logger | undefined
}

/** Applies defaults and rejects nonsense numbers with `INVALID_CONFIG` naming the option. */
export function resolveClientOptions(options: NotificationsClientOptions<any>): TransportOptions {
  const problems: string[] = []
  const num = (value: number | undefined, fallback: number, path: string, min = 0, allowInfinity = false): number => {
    if (value === undefined) return fallback
    // A wait longer than a timer holds (2^31 − 1 ms) fires at once in every runtime: refused here.
    const max = path.endsWith('Ms') ? MAX_TIMEOUT_MS : allowInfinity ? Number.POSITIVE_INFINITY : Number.MAX_VALUE
    if (typeof value !== 'number' || !(value >= min && value <= max)) problems.push(`${path}: expected a number from ${min} to ${max}, got ${describe(value)}`)
    return value
  }
  const fn = <F>(value: F | undefined, fallback: F, path: string): F => {
    if (value === undefined) return fallback
    if (typeof value !== 'function') problems.push(`${path}: expected a function, got ${typeof value}`)
    return value
  }
  if (!options || typeof options.config?.getSolver !== 'function') {
    throw new ServiceError('INVALID_CONFIG', 'createNotificationsClient needs { config }: pass the result of createConfig(...).')
  }
  const r = options.reconnect ?? {}
  const hb = options.heartbeat
  const maxFrameBytes = num(options.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES, 'maxFrameBytes', 1)
  const WebSocket = options.WebSocket
  if (WebSocket !== undefined && typeof WebSocket !== 'function') problems.push('WebSocket: expected a WebSocket constructor')
  const lifecycle = options.lifecycle
  const crossTab = options.crossTab
  if (crossTab !== undefined && typeof crossTab !== 'boolean' && (typeof crossTab !== 'object' || crossTab === null || (crossTab.name !== undefined && (typeof crossTab.name !== 'string' || crossTab.name === '')))) {
    problems.push('crossTab: expected true, false or { name: a non-empty string }')
  }
  const auth = options.auth
  if (auth !== undefined && (typeof auth !== 'object' || auth === null || (auth.headers !== undefined && typeof auth.headers !== 'function') || (auth.socketUrl !== undefined && typeof auth.socketUrl !== 'function'))) {
    problems.push('auth: expected { headers?(ctx), socketUrl?(ctx) }, functions that return (or resolve to) headers and a URL')
  }
  const logger = options.logger
  if (logger !== undefined && (typeof logger !== 'object' || logger === null)) problems.push('logger: expected { debug?, info?, warn?, error? } (console works)')
  if (lifecycle !== undefined && lifecycle !== false && typeof lifecycle?.subscribe !== 'function') {
    problems.push('lifecycle: expected { subscribe(listener) => unsubscribe } or false')
  }
  // History requests' options (the client's `search`): checked with the rest, so a deadline no timer can
  // hold is not a client whose every read fails later.
  const search = (options as { search?: { timeoutMs?: number; retries?: number } }).search
  num(search?.timeoutMs, 0, 'search.timeoutMs', 1)
  num(search?.retries, 0, 'search.retries')
  const resolved: TransportOptions = {
    baseDelayMs: num(r.baseDelayMs, 500, 'reconnect.baseDelayMs', 1),
    maxDelayMs: num(r.maxDelayMs, 10_000, 'reconnect.maxDelayMs', 1),
    maxAttempts: num(r.maxAttempts, Number.POSITIVE_INFINITY, 'reconnect.maxAttempts', 0, true),
    resetAfterMs: num(r.resetAfterMs, 5_000, 'reconnect.resetAfterMs'),
    shouldRetry: fn(r.shouldRetry, retryAllButRefusals, 'reconnect.shouldRetry'),
    connectTimeoutMs: num(options.connectTimeoutMs, 10_000, 'connectTimeoutMs', 1),
    heartbeat:
      hb === false
        ? false
        : { intervalMs: num(hb?.intervalMs, 25_000, 'heartbeat.intervalMs', 1), timeoutMs: num(hb?.timeoutMs, 10_000, 'heartbeat.timeoutMs', 1) },
    lingerMs: num(options.lingerMs, 2_000, 'lingerMs'),
    maxFrameBytes,
    maxAccountsPerHub: num(options.maxAccountsPerHub, Number.POSITIVE_INFINITY, 'maxAccountsPerHub', 1, true),
    maxConcurrentDials: num(options.maxConcurrentDials, 64, 'maxConcurrentDials', 1, true),
    createWebSocket: WebSocket ? (url) => new WebSocket(url) : defaultWebSocket(maxFrameBytes),
    auth,
    random: fn(options.random, Math.random, 'random'),
    lifecycle: lifecycle === false ? undefined : (lifecycle ?? browserLifecycle()),
    logger: safeLogger(logger),
    diagnostics: new Diagnostics(),
  }
  if (problems.length > 0) {
    throw new ServiceError('INVALID_CONFIG', `Invalid client options:\n- ${problems.join('\n- ')}`)
  }
  return resolved
}
