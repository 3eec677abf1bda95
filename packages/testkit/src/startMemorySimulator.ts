import { MemoryWebSocket } from './memory/MemoryWebSocket.js'
import { memoryFetch } from './memory/memoryFetch.js'
import { addSimulator } from './memory/memoryHosts.js'
import { SimulatorCore } from './SimulatorCore.js'
import type { SolverSimulator, SolverSimulatorOptions } from './SolverSimulator.js'

/**
 * A {@link SolverSimulator} in memory, with what a client needs to reach it: no port and no network,
 * so it runs where a TCP server cannot (jsdom, happy-dom, browser mode, React Native's Jest, Workers'
 * test pool, a docs page).
 *
 * @example
 * const sim = await startMemorySimulator({ protocol: 'rasa' })
 * const client = createNotificationsClient({ config, ...sim.clientOptions })
 */
export interface MemorySimulator extends SolverSimulator {
  /** The client's `WebSocket` option: dials in-memory simulators by the host of their URL. */
  readonly WebSocket: typeof MemoryWebSocket
  /** The client's `search.fetch` option: reaches in-memory simulators by the host of their URL. */
  readonly fetch: typeof memoryFetch
  /** Both, as client options: `createNotificationsClient({ config, ...sim.clientOptions })`. */
  readonly clientOptions: { WebSocket: typeof MemoryWebSocket; search: { fetch: typeof memoryFetch } }
}

/**
 * Starts a solver simulator in memory, with the API of `startSolverSimulator` (publishing, scripted
 * lifecycles, history, faults, both protocols) and URLs on a host of its own (`wss://sim-1.memory.test`)
 * that only {@link MemoryWebSocket} and {@link memoryFetch} reach. One `WebSocket` and one `fetch`
 * serve every in-memory simulator, so a config may name several. `host` and `port` are ignored.
 *
 * @example
 * const sim = await startMemorySimulator({ protocol: 'enigma' })
 * const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } } })
 * const client = createNotificationsClient({ config, ...sim.clientOptions })
 */
export async function startMemorySimulator(options: SolverSimulatorOptions): Promise<MemorySimulator> {
  const core = new SimulatorCore(options)
  const { host, remove } = addSimulator(core)
  const httpUrl = `https://${host}`
  return {
    ...core.behaviour(),
    wsUrl: `wss://${host}${core.module.wsPath}`,
    httpUrl,
    searchUrl: `${httpUrl}/notification`,
    WebSocket: MemoryWebSocket,
    fetch: memoryFetch,
    clientOptions: { WebSocket: MemoryWebSocket, search: { fetch: memoryFetch } },
    async close() {
      await core.close()
      remove()
    },
  }
}
