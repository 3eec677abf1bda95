import type { EnigmaSearchParams, EnigmaSearchResult, ServiceEnigmaNotificationsConfig } from './enigma/enigmaTypes.js'
import { enigmaConfig } from './enigma/enigmaConfig.js'
import { enigmaProtocol } from './enigma/enigmaProtocol.js'
import type { ProtocolConfigModule, ProtocolWire } from './ProtocolModule.js'
import { rasaConfig } from './rasa/rasaConfig.js'
import type { RasaSearchParams, RasaSearchResult, ServiceRasaNotificationsConfig } from './rasa/rasaTypes.js'
import { rasaProtocol } from './rasa/rasaProtocol.js'

/**
 * The protocols at the type level: each one's notifications config, search parameters and search
 * result. Config types, `SearchParamsFor` / `SearchResultFor` narrowing and the result union all
 * read this one table.
 *
 * @example
 * type RasaResult = ProtocolTypes['rasa']['result']
 */
export interface ProtocolTypes {
  enigma: { config: ServiceEnigmaNotificationsConfig; params: EnigmaSearchParams; result: EnigmaSearchResult }
  rasa: { config: ServiceRasaNotificationsConfig; params: RasaSearchParams; result: RasaSearchResult }
}

/**
 * The wire protocol a solver speaks.
 *
 * @example
 * const protocol: Protocol = 'rasa'
 */
export type Protocol = keyof ProtocolTypes

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
export interface SolverEndpoint<P extends ServiceNotificationsConfig = ServiceNotificationsConfig> {
  readonly chainId: number
  readonly solverId: string
  readonly url?: string
  /** the solver's configured headers (history requests; the socket upgrade on Node) */
  readonly headers?: Readonly<Record<string, string>>
  readonly notifications: P
}

/**
 * The registry of wire halves at run time: the one place pool, streams and cross-tab look a
 * protocol's live behaviour up. Search and backfill read `searchProtocols`, `createConfig` reads
 * `protocolConfigs`; the three are apart so a bundle carries only the halves it uses. Adding a
 * protocol is its folder plus its line in each (and `ProtocolTypes`), or `registerProtocol` at run time.
 */
export const protocols: Readonly<Record<Protocol, ProtocolWire>> = { enigma: enigmaProtocol, rasa: rasaProtocol }

/** Each protocol's config block (kept apart from the wire modules, so the frame helpers carry no config code). */
export const protocolConfigs: Readonly<Record<Protocol, ProtocolConfigModule>> = { enigma: enigmaConfig, rasa: rasaConfig }

let version = 0

/** Marks a change of the registry, so what is built from it (the config schema) is rebuilt. */
export function bumpRegistryVersion(): void {
  version++
}

/** Changes whenever the registry does, so what is built from it (the config schema) is rebuilt. */
export function registryVersion(): number {
  return version
}

/** The wire half of a protocol name, or undefined when no such protocol is registered. */
export function protocolOf(name: unknown): ProtocolWire | undefined {
  return typeof name === 'string' && Object.hasOwn(protocols, name) ? protocols[name as Protocol] : undefined
}
