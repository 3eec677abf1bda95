/**
 * @packageDocumentation
 * @module @solver-notifications/testkit
 */
export type { EnigmaOrder, StoredDocument } from './protocols/EnigmaHistory.js'
export { registerSimulatorProtocol, simulatorProtocols, type SimulatorProtocols } from './protocols/index.js'
export type { SimulatorProtocolInstance, SimulatorProtocolModule } from './protocols/SimulatorProtocolModule.js'
export type { HttpFault, HttpHold } from './HttpFaults.js'
export type { LifecycleResult, SimulatorClock } from './Lifecycles.js'
export { startSolverSimulator, type SolverSimulator, type SolverSimulatorOptions } from './startSolverSimulator.js'
export type { ConnectionRecord, SimulatorFrame, SimulatorProtocol, SubscriptionRecord } from './types.js'
export { connectTestClient, type TestClient } from './testClient.js'
export { startMemorySimulator, type MemorySimulator } from './startMemorySimulator.js'
export { MemoryWebSocket } from './memory/MemoryWebSocket.js'
export { memoryFetch } from './memory/memoryFetch.js'
