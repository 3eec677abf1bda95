/**
 * The least every protocol's `notifications` config block has: its protocol's name and a socket URL.
 *
 * @example
 * const block: NotificationsBlock = { protocol: 'rasa', url: 'wss://solver.example/ws' }
 */
export interface NotificationsBlock {
  readonly protocol: string
  readonly url: string
}

/**
 * A solver as a protocol needs it: ids, its own HTTP API and its notifications endpoint of type `C`.
 *
 * @example
 * const solver: SolverEndpointOf<ServiceRasaNotificationsConfig> = { chainId: 42161, solverId: 'beta', notifications: { protocol: 'rasa', url } }
 */
export interface SolverEndpointOf<C extends NotificationsBlock = NotificationsBlock> {
  readonly chainId: number
  readonly solverId: string
  readonly url?: string
  /** the solver's configured headers (history requests; the socket upgrade on Node) */
  readonly headers?: Readonly<Record<string, string>>
  readonly notifications: C
}
