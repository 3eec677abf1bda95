import { enigmaDriver } from './enigmaDriver.js'
import type { ProtocolDriver } from './ProtocolDriver.js'
import { rasaDriver } from './rasaDriver.js'
import type { Protocol } from './types.js'

/** The driver for each protocol: the one place the pool and streams look up protocol behaviour. */
export const drivers: Readonly<Record<Protocol, ProtocolDriver>> = { enigma: enigmaDriver, rasa: rasaDriver }
