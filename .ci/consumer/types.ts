// Compiled with skipLibCheck false under each module resolution: the public types must resolve.
import { type Notification, createConfig, createNotificationsClient } from '@solver-notifications/core'
import { searchNotificationsQueryOptions } from '@solver-notifications/core/query'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'

export async function typed(sim: SolverSimulator): Promise<number> {
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { url: sim.httpUrl, notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
  const client = createNotificationsClient({ config })
  const options = searchNotificationsQueryOptions(client, { solverId: 'r' })
  const n: Notification | undefined = undefined
  return options.queryKey.length + (n === undefined ? 0 : 1) + (typeof startSolverSimulator === 'function' ? 1 : 0)
}
