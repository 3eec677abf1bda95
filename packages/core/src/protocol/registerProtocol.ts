import type { WireFrame } from './frame.js'
import type { ProtocolConfigModule, ProtocolModule, SearchResultBase } from './ProtocolModule.js'
import { bumpRegistryVersion, protocolConfigs, protocols } from './protocols.js'
import type { SearchParamsBase } from './searchParamsBase.js'
import { searchProtocols } from './searchProtocols.js'
import type { NotificationsBlock } from './solverEndpoint.js'

/**
 * Registers a protocol module at run time, its wire, search and config halves each in its registry
 * (tests prove a new protocol needs nothing but its module and this call). Not part of the public
 * API: a protocol registered at run time works everywhere, but its name is not in the `Protocol`
 * type (that is derived from the built-in modules).
 */
export function registerProtocol<Frame extends WireFrame, Row, Params extends SearchParamsBase, Result extends SearchResultBase, Config extends NotificationsBlock>(
  module: ProtocolModule<Frame, Row, Params, Result, Config>,
  config: ProtocolConfigModule<Config['protocol']>,
): () => void {
  const { search, ...wire } = module
  const name = module.protocol
  // The registries are keyed by the built-in names at the type level; a run-time name is added by value.
  Object.assign(protocols, { [name]: wire })
  Object.assign(searchProtocols, { [name]: search })
  Object.assign(protocolConfigs, { [name]: config })
  bumpRegistryVersion()
  return () => {
    for (const registry of [protocols, searchProtocols, protocolConfigs]) Reflect.deleteProperty(registry, name)
    bumpRegistryVersion()
  }
}
