/**
 * The part of the WHATWG WebSocket API the pool uses; `ws` (Node), browsers, React Native and
 * workers all provide it. `ping`/`on`/`terminate` are optional extras of Node's `ws` used for heartbeats.
 *
 * @example
 * createNotificationsClient({ config, WebSocket: globalThis.WebSocket as WebSocketConstructor })
 */
export interface WebSocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: { code?: number; reason?: string }) => void) | null
  onerror: ((event: unknown) => void) | null
  ping?: (data?: unknown) => void
  terminate?: () => void
  on?: (event: 'pong', listener: () => void) => unknown
  off?: (event: 'pong', listener: () => void) => unknown
}

/**
 * A WebSocket constructor (WHATWG-compatible) the client dials with.
 *
 * @example
 * const WS: WebSocketConstructor = globalThis.WebSocket as unknown as WebSocketConstructor
 */
export type WebSocketConstructor = new (url: string) => WebSocketLike

/** readyState OPEN in every implementation */
export const OPEN = 1
