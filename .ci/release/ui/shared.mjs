// What every UI smoke shares: a rasa simulator from the testkit tarball and a config for it.
import { createConfig, createNotificationsClient } from '@solver-notifications/core'
import { startSolverSimulator } from '@solver-notifications/testkit'

export const account = '0xAbC0000000000000000000000000000000000001'

export async function startSmoke() {
  const sim = await startSolverSimulator({ protocol: 'rasa' })
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
  const clients = []
  const client = (options = {}) => {
    const c = createNotificationsClient({ config, ...options })
    clients.push(c)
    return c
  }
  const frame = (quote, id) => ({ id, quote_id: quote, temp_quote_id: -quote, modify_time: Math.floor(Date.now() / 1000), counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' })
  return {
    sim,
    client,
    frame,
    async stop() {
      for (const c of clients) c.close()
      await sim.close()
    },
  }
}

export { check, until } from './checks.mjs'
