// The testing guide's component test, from the tarballs: a React component in jsdom against the
// in-memory simulator (`@solver-notifications/testkit/memory`): no port, the client's WebSocket and
// fetch are the simulator's. Live frames, a dropped socket recovered by backfill, and a search.
import { JSDOM } from 'jsdom'
import { check, until } from './shared.mjs'

const dom = new JSDOM('<!doctype html><html><body><div id="root"></div></body></html>', { url: 'http://localhost/' })
for (const key of ['window', 'document', 'navigator', 'HTMLElement', 'Node', 'Event', 'MutationObserver']) {
  Object.defineProperty(globalThis, key, { value: key === 'window' ? dom.window : dom.window[key], configurable: true, writable: true })
}
globalThis.IS_REACT_ACT_ENVIRONMENT = false
const { createElement: h, useState } = await import('react')
const { createRoot } = await import('react-dom/client')
const { createConfig, createNotificationsClient } = await import('@solver-notifications/core')
const { NotificationsProvider, useNotifications } = await import('@solver-notifications/react')
const { startMemorySimulator } = await import('@solver-notifications/testkit/memory')

const account = '0xAbC0000000000000000000000000000000000001'
const sim = await startMemorySimulator({ protocol: 'rasa' })
check(sim.wsUrl.startsWith('wss://sim-'), `an in-memory URL, got ${sim.wsUrl}`)
const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: { protocol: 'rasa', url: sim.wsUrl } } } } } })
const client = createNotificationsClient({ config, ...sim.clientOptions, reconnect: { baseDelayMs: 10, maxDelayMs: 20 } })

function Fills() {
  const [notifications, setNotifications] = useState([])
  const { status } = useNotifications({ account, resume: true, onNotification: (n) => setNotifications((list) => [...list, n]) })
  return h('ul', { id: 'fills', 'data-status': status }, notifications.map((n) => h('li', { key: n.id }, `${n.quoteId} ${n.type}`)))
}
const root = createRoot(document.getElementById('root'))
root.render(h(NotificationsProvider, { client }, h(Fills)))
const items = () => document.querySelectorAll('#fills li').length
await sim.waitForSubscribers(account)
const first = await sim.instantOpen(account)
await until('the first lifecycle on screen', () => items() === first.frames.length)
await sim.dropAll(1012)
sim.refuseSockets(true)
await until('reconnecting', () => document.getElementById('fills')?.dataset.status === 'reconnecting')
await sim.instantOpen(account) // published while the socket is down
sim.refuseSockets(false)
await until('the missed quote recovered by backfill', () => items() === first.frames.length + 1)
const page = await client.search({ account })
check(page.kind === 'rasa' && page.rows.length === 2, `search in memory: ${JSON.stringify(page).slice(0, 200)}`)
root.unmount()
client.close()
await sim.close()
console.log('react component test in jsdom against the in-memory simulator (live, drop + backfill, search): ok')
