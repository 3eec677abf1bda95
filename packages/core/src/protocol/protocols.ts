import { enigmaConfig } from './enigma/enigmaConfig.js'
import { enigmaProtocol } from './enigma/enigmaProtocol.js'
import type { ProtocolConfigModule, ProtocolWire } from './ProtocolModule.js'
import { rasaConfig } from './rasa/rasaConfig.js'
import { rasaProtocol } from './rasa/rasaProtocol.js'
import type { BuiltInSearches, SearchParamsOf, SearchResultOf } from './searchProtocols.js'
import type { NotificationsBlock, SolverEndpointOf } from './solverEndpoint.js'

/** The wire halves built in; `Protocol` and the config union are derived from this value. */
const builtInWires = { enigma: enigmaProtocol, rasa: rasaProtocol }
type BuiltInWires = typeof builtInWires

type ConfigOf<W> = W extends ProtocolWire<infer C> ? C : never

/**
 * The protocols at the type level, derived from the registered modules: each one's notifications
 * config (from its wire half), search parameters and search result (from its search half). Config
 * types, `SearchParamsFor` / `SearchResultFor` narrowing and the result union all read this table.
 *
 * @example
 * type RasaResult = ProtocolTypes['rasa']['result']
 */
export type ProtocolTypes = {
  [P in keyof BuiltInWires]: {
    config: ConfigOf<BuiltInWires[P]>
    params: SearchParamsOf<BuiltInSearches[P]>
    result: SearchResultOf<BuiltInSearches[P]>
  }
}

/**
 * The wire protocol a solver speaks.
 *
 * @example
 * const protocol: Protocol = 'rasa'
 */
export type Protocol = keyof BuiltInWires

/**
 * A solver's notifications endpoint, discriminated by `protocol`.
 *
 * @example
 * if (n.protocol === 'enigma') console.log(n.channel)
 */
export type ServiceNotificationsConfig = ProtocolTypes[Protocol]['config']

/**
 * A solver as the protocol layer needs it: ids, its own HTTP API and its notifications endpoint.
 *
 * @example
 * const { chainId, solverId, notifications } = config.getSolver({ solverId: 'beta' })
 */
export type SolverEndpoint<P extends ServiceNotificationsConfig = ServiceNotificationsConfig> = SolverEndpointOf<P>

/** A wire half as the pool, streams and cross-tab use it: any protocol's, typed by the widest frame and config. */
export type AnyProtocolWire = ProtocolWire<NotificationsBlock & { readonly protocol: Protocol }>

/**
 * The registry of wire halves at run time: the one place pool, streams and cross-tab look a
 * protocol's live behaviour up. Search and backfill read `searchProtocols`, `createConfig` reads
 * `protocolConfigs`; the three are apart so a bundle carries only the halves it uses. Adding a
 * protocol is its folder plus its line in each (its types follow), or `registerProtocol` at run time.
 */
export const protocols: Record<Protocol, AnyProtocolWire> = builtInWires

/** Each protocol's config block (kept apart from the wire modules, so the frame helpers carry no config code). */
export const protocolConfigs: Record<Protocol, ProtocolConfigModule> = { enigma: enigmaConfig, rasa: rasaConfig }

let version = 0

/** Marks a change of the registry, so what is built from it (the config schema) is rebuilt. */
export function bumpRegistryVersion(): void {
  version++
}

/** Changes whenever the registry does, so what is built from it (the config schema) is rebuilt. */
export function registryVersion(): number {
  return version
}

/** Whether `name` is a registered protocol (built in or registered at run time). */
export function isProtocol(name: unknown): name is Protocol {
  return typeof name === 'string' && Object.hasOwn(protocols, name)
}

/** The wire half of a protocol name, or undefined when no such protocol is registered. */
export function protocolOf(name: unknown): AnyProtocolWire | undefined {
  return isProtocol(name) ? protocols[name] : undefined
}
