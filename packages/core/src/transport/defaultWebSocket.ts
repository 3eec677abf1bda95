import WebSocketImpl from 'isomorphic-ws'
import type { WebSocketConstructor, WebSocketLike } from './WebSocketLike.js'

/**
 * The socket factory used when none is injected: `isomorphic-ws` (Node's `ws`, the platform
 * WebSocket elsewhere). On Node, `ws` gets `maxPayload: maxFrameBytes`, so an oversized frame is
 * refused from its header instead of being buffered whole (ws's own default limit is 100 MiB).
 */
export function defaultWebSocket(maxFrameBytes: number): (url: string, headers?: Readonly<Record<string, string>>) => WebSocketLike {
  const WS = WebSocketImpl as unknown as WebSocketConstructor & { WebSocketServer?: unknown; Server?: unknown }
  // A browser WebSocket takes protocols as its second argument: only Node's ws gets options.
  if (typeof WS.WebSocketServer === 'function' || typeof WS.Server === 'function') {
    const NodeWS = WS as unknown as new (url: string, options: { maxPayload: number; headers?: Record<string, string> }) => WebSocketLike
    // Node can send the solver's configured headers (App-Name, …) with the upgrade request.
    return (url, headers) => new NodeWS(url, headers ? { maxPayload: maxFrameBytes, headers: { ...headers } } : { maxPayload: maxFrameBytes })
  }
  // Elsewhere the platform's own WebSocket, when there is one: under Jest's jsdom environment the
  // `browser` export condition hands isomorphic-ws the stub of `ws` that only throws, while jsdom has a
  // working WebSocket.
  const Native = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
  if (typeof Native === 'function') return (url) => new Native(url)
  return (url) => new WS(url)
}
