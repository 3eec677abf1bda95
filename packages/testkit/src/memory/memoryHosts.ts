import type { SimulatorCore } from '../SimulatorCore.js'

/** The in-memory simulators running, by the host their URLs name (`sim-1.memory.test`). */
const hosts = new Map<string, SimulatorCore>()
let next = 0

/** Registers a simulator under a host of its own; returns the host and the function that removes it. */
export function addSimulator(core: SimulatorCore): { host: string; remove: () => void } {
  const host = `sim-${++next}.memory.test`
  hosts.set(host, core)
  return { host, remove: () => hosts.delete(host) }
}

/** The simulator a URL's host names, if it is running. */
export function simulatorAt(host: string): SimulatorCore | undefined {
  return hosts.get(host.toLowerCase())
}
