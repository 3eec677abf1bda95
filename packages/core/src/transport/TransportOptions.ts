import type { AuthOptions } from '../config/auth.js'
import type { Diagnostics } from './Diagnostics.js'
import type { Lifecycle } from './Lifecycle.js'
import type { SafeLogger } from './SafeLogger.js'
import type { WebSocketLike } from './WebSocketLike.js'

/**
 * A close the server (or the network) made, as `reconnect.shouldRetry` sees it.
 *
 * @example
 * const shouldRetry = (close: SocketClose) => close.code !== 4001
 */
export interface SocketClose {
  code: number
  reason: string
}

/** Every transport setting, defaults applied (see the client options for what each means). */
export interface TransportOptions {
  baseDelayMs: number
  maxDelayMs: number
  maxAttempts: number
  resetAfterMs: number
  shouldRetry: (close: SocketClose) => boolean
  connectTimeoutMs: number
  heartbeat: { intervalMs: number; timeoutMs: number } | false
  lingerMs: number
  maxFrameBytes: number
  maxAccountsPerHub: number
  maxConcurrentDials: number
  /** `headers` reach the upgrade request where the runtime lets them (Node's ws); browsers cannot send them */
  createWebSocket: (url: string, headers?: Readonly<Record<string, string>>) => WebSocketLike
  auth: AuthOptions | undefined
  random: () => number
  lifecycle: Lifecycle | undefined
  /** undefined when silent: nothing is built for a log line nobody reads */
  logger: SafeLogger | undefined
  /** the client's diagnostics seam (`client.diagnostics`): every place that emits checks `active` first */
  diagnostics: Diagnostics
}
