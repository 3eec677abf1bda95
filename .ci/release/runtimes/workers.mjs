// Cloudflare Workers from the tarball, in workerd (miniflare from npm): search with a client per
// request, a live stream inside a Durable Object, and the cross-request error.
import { Miniflare } from 'miniflare'
import { account, bundle, check, other, startSim, until } from './shared.mjs'

const script = await bundle('./worker.js', ['workerd', 'worker', 'browser'], 'esm')
const sim = await startSim()
const mf = new Miniflare({ modules: true, script, compatibilityDate: '2025-09-01', durableObjects: { LIVE: 'Live' }, bindings: { SIM_WS: sim.wsUrl, SIM_HTTP: sim.httpUrl } })
const get = async (path) => (await mf.dispatchFetch(`http://worker${path}`)).json()
try {
  await sim.publish({ id: 'stored', quote_id: 5, counterparty_address: account, modify_time: sim.tick(), action_status: 'success' })
  const page = await get(`/search?account=${account}`)
  check(page.kind === 'rasa' && page.rows === 1, `search in a Worker: ${JSON.stringify(page)}`)
  await get(`/do/watch?account=${account}`)
  await sim.waitForSubscribers(account)
  await sim.publish({ id: 'live', quote_id: 6, counterparty_address: account, modify_time: sim.tick(), action_status: 'success' })
  await until('the live notification in the Durable Object', async () => (await get('/do/events')).events.includes('n:live'))
  const first = await get(`/module?account=${account}`)
  check(first.events.join() === 'connecting,open', `module-scope client, first request: ${first.events}`)
  // The second request uses the first one's socket (a new account goes out on the same hub).
  const second = await get(`/module?account=${other}`)
  const after = second.events.slice(2)
  check(after.includes('CROSS_REQUEST') && after.at(-1) === 'closed' && !after.includes('reconnecting'), `module-scope client, second request: ${second.events}`)
  console.log('workers (workerd: search per request, live stream in a Durable Object, CROSS_REQUEST from a module-scope client): ok')
} finally {
  await mf.dispose()
  await sim.close()
}
