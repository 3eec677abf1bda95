// Vercel Edge from the tarball, in edge-runtime (its local stand-in): a live stream and a search.
import { EdgeRuntime } from 'edge-runtime'
import { account, bundle, check, startSim, until } from './shared.mjs'

const code = await bundle('./edge-entry.js', ['edge-light', 'worker', 'browser'], 'iife')
const sim = await startSim()
try {
  const runtime = new EdgeRuntime({ initialCode: code })
  const app = await runtime.evaluate(`startEdge(${JSON.stringify(sim.wsUrl)}, ${JSON.stringify(sim.httpUrl)}, ${JSON.stringify(account)})`)
  await sim.waitForSubscribers(account)
  await sim.publish({ id: 'edge-live', quote_id: 6, counterparty_address: account, modify_time: sim.tick(), action_status: 'success' })
  await until('the live notification', () => app.seen().includes('edge-live'))
  const page = await app.search()
  check(page.kind === 'rasa' && page.rows === 1, `search at the edge: ${JSON.stringify(page)}`)
  app.close()
  console.log('vercel edge (edge-runtime: live stream, search): ok')
} finally {
  await sim.close()
}
