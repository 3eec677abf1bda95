import { ServiceError } from '../errors/ServiceError.js'
import type { SocketClose } from './TransportOptions.js'

/** How a socket was lost, as the connection saw it. */
export interface LostSocket {
  /** `server`: a close event; `dead`: no pong or no open in time; `local`: the WebSocket could not be created */
  cause: 'server' | 'dead' | 'local'
  code?: number | undefined
  reason?: string | undefined
  /** the WebSocket implementation refused an inbound frame over its payload limit (Node ws: maxPayload) */
  oversize: boolean
  /** a hub's subscribe frame was the last thing sent and nothing came back since */
  afterSubscribe: { accounts: number; bytes: number } | undefined
  /** the server refused the upgrade with this HTTP status (401, 403), where the runtime tells (Node) */
  refusedUpgrade?: number | undefined
}

/** What to do about a lost socket: retry or not, and what to tell the subscribers. */
export interface CloseVerdict {
  retry: boolean
  /** the server refused this client's credentials: re-dial once at once (asking `auth.socketUrl` again), then give up */
  refusal?: string | undefined
  /** counts as one oversize frame (received and dropped) */
  oversize: boolean
  error: ServiceError | undefined
}

/** Closes that mean "your credentials": one re-dial at once with fresh ones, then `UNAUTHORIZED`. */
const AUTH_CLOSES: Readonly<Record<number, string>> = { 1008: 'policy violation', 4001: 'unauthorized', 4003: 'forbidden' }

/**
 * The default of `reconnect.shouldRetry`: everything but policy violation (1008) and unsupported data
 * (1003). 1008 is answered before `shouldRetry` is asked (a refusal of the credentials), so it is
 * listed for what the option says, not because this function sees it.
 */
export const retryAllButRefusals = (close: SocketClose): boolean => close.code !== 1008 && close.code !== 1003

const MEANING: Record<number, string> = { 1003: 'unsupported data', 1008: 'policy violation', 1009: 'message too big', 1011: 'server error' }

/**
 * The one place close codes are classified (docs/architecture.md, "Connection"). Local failures (timeouts, dead links) are
 * always retried; a server close asks `shouldRetry`, and a refused one says why.
 */
export function classifyClose(
  lost: LostSocket,
  context: { url: string; maxFrameBytes: number; shouldRetry: (close: SocketClose) => boolean },
): CloseVerdict {
  if (lost.oversize) {
    return {
      retry: true,
      oversize: true,
      error: socketError(
        `${context.url} sent a frame over maxFrameBytes (${context.maxFrameBytes} bytes): closed before buffering it, reconnecting. Raise maxFrameBytes if frames that large are expected.`,
      ),
    }
  }
  // Credentials first, whatever shouldRetry says: they get one fresh try, never a backoff loop.
  if (lost.refusedUpgrade !== undefined) return { retry: true, oversize: false, error: undefined, refusal: `refused the upgrade with HTTP ${lost.refusedUpgrade}` }
  if (lost.cause === 'server' && lost.code !== undefined && Object.hasOwn(AUTH_CLOSES, lost.code)) {
    return { retry: true, oversize: false, error: undefined, refusal: `closed the socket with ${lost.code} (${AUTH_CLOSES[lost.code]})${lost.reason ? `: "${lost.reason}"` : ''}` }
  }
  if (lost.cause !== 'server' || lost.code === undefined) return { retry: true, oversize: false, error: undefined }
  const close: SocketClose = { code: lost.code, reason: lost.reason ?? '' }
  const named = `${close.code}${MEANING[close.code] ? ` (${MEANING[close.code]})` : ''}${close.reason ? `: "${close.reason}"` : ''}`
  let retry: boolean
  try {
    retry = context.shouldRetry(close) !== false
  } catch (cause) {
    return { retry: true, oversize: false, error: socketError(`reconnect.shouldRetry threw on close ${named}; retrying. Fix the callback.`, cause) }
  }
  if (!retry) {
    return {
      retry: false,
      oversize: false,
      error: socketError(
        `${context.url} closed the socket with ${named}; not retried (reconnect.shouldRetry): its streams end closed. ` +
          // 1008 never gets here: it is a refusal of the credentials, handled above.
          (close.code === 1003 ? 'The server refused what was sent: check the protocol configured for this solver.' : 'Subscribe again once the cause is fixed.'),
      ),
    }
  }
  if (close.code === 1009 && lost.afterSubscribe) {
    const { accounts, bytes } = lost.afterSubscribe
    return {
      retry: true,
      oversize: false,
      error: socketError(
        `${context.url} closed the hub with 1009 (message too big) after a subscribe frame of ${accounts} addresses (${bytes} bytes), too large for it; retrying. Set maxAccountsPerHub (e.g. 5000) to spread them over several hubs.`,
      ),
    }
  }
  return { retry: true, oversize: false, error: undefined }
}

function socketError(message: string, cause?: unknown): ServiceError {
  return new ServiceError('SOCKET', message, { cause })
}
