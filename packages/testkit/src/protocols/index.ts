import { enigmaSimulator } from './enigma.js'
import { rasaSimulator } from './rasa.js'
import type { SimulatorProtocolModule } from './SimulatorProtocolModule.js'

/**
 * The protocols the simulator speaks, at the type level.
 *
 * @example
 * const protocol: keyof SimulatorProtocols = 'rasa'
 */
export interface SimulatorProtocols {
  enigma: typeof enigmaSimulator
  rasa: typeof rasaSimulator
}

/**
 * The protocols the simulator speaks, by name: the one place `startSolverSimulator` and the CLI look
 * one up.
 */
export const simulatorProtocols: Record<string, SimulatorProtocolModule> = { enigma: enigmaSimulator, rasa: rasaSimulator }

/**
 * Teaches the simulator another wire protocol (a test of a new client protocol starts here); returns
 * the function that removes it again.
 *
 * @example
 * const unregister = registerSimulatorProtocol(toySimulator)
 * const sim = await startSolverSimulator({ protocol: 'toy' as never })
 */
export function registerSimulatorProtocol(module: SimulatorProtocolModule): () => void {
  simulatorProtocols[module.name] = module
  return () => {
    delete simulatorProtocols[module.name]
  }
}
