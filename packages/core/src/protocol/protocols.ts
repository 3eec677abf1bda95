import type { Protocol } from '../config/types.js'
import { enigmaProtocol } from './enigma/enigmaProtocol.js'
import type { ProtocolModule } from './ProtocolModule.js'
import { rasaProtocol } from './rasa/rasaProtocol.js'

/** The registry: the one place pool, streams, search and backfill look a protocol up. */
export const protocols: Readonly<Record<Protocol, ProtocolModule>> = { enigma: enigmaProtocol, rasa: rasaProtocol }
