import type { Protocol, ServiceNotificationsConfig, SolverEndpoint } from '../protocol/protocols.js'

// The protocols own their config blocks; the config layer only puts them together.
export type { Protocol, ServiceNotificationsConfig } from '../protocol/protocols.js'
export type { ServiceEnigmaNotificationsConfig } from '../protocol/enigma/enigmaTypes.js'
export type { ServiceRasaNotificationsConfig } from '../protocol/rasa/rasaTypes.js'

/**
 * One solver: its own HTTP API (`url`, where rasa search goes) and its notifications endpoint.
 *
 * @example
 * const beta: SolverConfig = { url: 'https://beta.example', notifications: { protocol: 'rasa', url: 'wss://beta.example/ws' } }
 */
export interface SolverConfig {
  readonly url?: string
  /** sent on every history request to this solver (e.g. `{ 'App-Name': 'my-app' }`), and on the socket upgrade where the runtime allows it (Node) */
  readonly headers?: Readonly<Record<string, string>>
  readonly notifications: ServiceNotificationsConfig
}

/**
 * The solvers of one chain and which one is used when none is named.
 *
 * @example
 * const chain: ChainConfig = { defaultSolver: 'alpha', solvers: { alpha } }
 */
export interface ChainConfig {
  readonly defaultSolver: string
  readonly solvers: Readonly<Record<string, SolverConfig>>
}

/**
 * What {@link createConfig} takes.
 *
 * @example
 * const input: NotificationsConfigInput = { defaultChainId: 42161, chains: { 42161: chain } }
 */
export interface NotificationsConfigInput {
  readonly defaultChainId: number
  readonly chains: Readonly<Record<number, ChainConfig>>
  /** Allow `ws://` / `http://` to non-loopback hosts. Off by default: account data must not travel in clear text by accident. */
  readonly allowInsecureTransport?: boolean
}

/**
 * A solver resolved from the config by {@link NotificationsConfig.getSolver}.
 *
 * @example
 * const { chainId, solverId, notifications } = config.getSolver({ solverId: 'beta' })
 */
export interface ResolvedSolver<P extends ServiceNotificationsConfig = ServiceNotificationsConfig> extends SolverEndpoint<P> {}

type ChainsOf<C> = C extends { chains: infer Ch } ? Ch : never

/**
 * The union of configured solver ids (every chain), or `string` for a config not written with literal types.
 *
 * @example
 * type Ids = SolverId<typeof config> // 'alpha' | 'beta'
 */
export type SolverId<C = NotificationsConfigInput> = string extends SolverIdsOf<UnwrapConfig<C>>
  ? string
  : SolverIdsOf<UnwrapConfig<C>>

type SolverIdsOf<I> = {
  [K in keyof ChainsOf<I>]: ChainsOf<I>[K] extends { solvers: infer S } ? keyof S & string : never
}[keyof ChainsOf<I>]

/**
 * The protocol(s) a solver id speaks in a config (a union when the id speaks different protocols on different chains).
 *
 * @example
 * type P = SolverProtocol<typeof config, 'beta'> // 'rasa'
 */
export type SolverProtocol<C, S> = {
  [K in keyof ChainsOf<UnwrapConfig<C>>]: ChainsOf<UnwrapConfig<C>>[K] extends { solvers: infer Solvers }
    ? S extends keyof Solvers
      ? Solvers[S] extends { notifications: { protocol: infer P } }
        ? P
        : never
      : never
    : never
}[keyof ChainsOf<UnwrapConfig<C>>] extends infer P
  ? [P] extends [never]
    ? Protocol
    : P
  : Protocol

/** Accepts either a config input type or a created config type. */
export type UnwrapConfig<C> = C extends NotificationsConfig<infer I> ? I : C

/**
 * A validated configuration: what every client and search call resolves solvers from.
 *
 * @example
 * const solver = config.getSolver({ chainId: 42161, solverId: 'beta' })
 */
export interface NotificationsConfig<C extends NotificationsConfigInput = NotificationsConfigInput> {
  readonly defaultChainId: number
  readonly chains: C['chains']
  readonly allowInsecureTransport: boolean
  /** Resolves a solver; `chainId` defaults to `defaultChainId`, `solverId` to that chain's `defaultSolver`. Throws `UNKNOWN_CHAIN` / `UNKNOWN_SOLVER`. */
  getSolver(params?: { chainId?: number | undefined; solverId?: string | undefined }): ResolvedSolver
  /** Type-only carrier of the literal input, used to narrow results by solver id. */
  readonly '~input'?: C
}
