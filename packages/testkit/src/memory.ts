// The in-memory simulator, with nothing of Node in its module graph (no `node:http`, no `ws`): it loads
// in browsers, jsdom, React Native and Workers. `@solver-notifications/testkit/memory`.
export { startMemorySimulator, type MemorySimulator } from './startMemorySimulator.js'
export { MemoryWebSocket } from './memory/MemoryWebSocket.js'
export { memoryFetch } from './memory/memoryFetch.js'
export type { SolverSimulator, SolverSimulatorOptions } from './SolverSimulator.js'
export type { HttpFault, HttpHold } from './HttpFaults.js'
export type { LifecycleResult, SimulatorClock } from './Lifecycles.js'
export type { ConnectionRecord, SimulatorFrame, SimulatorProtocol, SubscriptionRecord } from './types.js'
export { registerSimulatorProtocol, simulatorProtocols, type SimulatorProtocols } from './protocols/index.js'
