import type { ProtocolConfigModule, ProtocolModule, ProtocolSearch, ProtocolWire } from './ProtocolModule.js'
import { bumpRegistryVersion, protocolConfigs, protocols } from './protocols.js'
import { searchProtocols } from './searchProtocols.js'

/**
 * Registers a protocol module at run time, its wire, search and config halves each in its registry
 * (tests prove a new protocol needs nothing but its module and this call). Not part of the public API.
 */
export function registerProtocol(module: ProtocolModule, config: ProtocolConfigModule): () => void {
  const { search, ...wire } = module
  ;(protocols as Record<string, ProtocolWire>)[module.protocol] = wire
  ;(searchProtocols as Record<string, ProtocolSearch>)[module.protocol] = search
  ;(protocolConfigs as Record<string, ProtocolConfigModule>)[config.protocol] = config
  bumpRegistryVersion()
  return () => {
    delete (protocols as Record<string, ProtocolWire>)[module.protocol]
    delete (searchProtocols as Record<string, ProtocolSearch>)[module.protocol]
    delete (protocolConfigs as Record<string, ProtocolConfigModule>)[config.protocol]
    bumpRegistryVersion()
  }
}
