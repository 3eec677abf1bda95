// React from its tarball: a component with useNotifications rendered on the server (no socket), then
// hydrated in jsdom, where it opens the socket and receives a notification from the simulator.
import { JSDOM } from 'jsdom'
import { account, check, startSmoke, until } from './shared.mjs'

const dom = new JSDOM('<!doctype html><html><body><div id="root"></div></body></html>', { url: 'http://localhost/' })
for (const key of ['window', 'document', 'navigator', 'HTMLElement', 'Node', 'Event', 'MutationObserver']) {
  Object.defineProperty(globalThis, key, { value: key === 'window' ? dom.window : dom.window[key], configurable: true, writable: true })
}
globalThis.IS_REACT_ACT_ENVIRONMENT = false
const { createElement: h } = await import('react')
const { renderToString } = await import('react-dom/server')
const { hydrateRoot } = await import('react-dom/client')
const { NotificationsProvider, useNotifications } = await import('@solver-notifications/react')

const smoke = await startSmoke()
const received = []
function Status() {
  const { status } = useNotifications({ account, onNotification: (n) => received.push(n.id) })
  return h('p', { id: 'status' }, `status:${status}`)
}
const serverClient = smoke.client()
const html = renderToString(h(NotificationsProvider, { client: serverClient }, h(Status)))
check(html.includes('status:idle'), `server HTML shows idle, got ${html}`)
check(serverClient.stats().sockets === 0, 'server rendering opened no socket')
const root = document.getElementById('root')
root.innerHTML = html
const browserClient = smoke.client()
const app = hydrateRoot(root, h(NotificationsProvider, { client: browserClient }, h(Status)))
await until('the hydrated component to say open', () => document.getElementById('status')?.textContent === 'status:open')
await smoke.sim.waitForSubscribers(account)
await smoke.sim.publish(smoke.frame(7, 'react-smoke'))
await until('the notification in onNotification', () => received.includes('react-smoke'))
app.unmount()
await smoke.stop()
console.log('react (server render, hydrate in jsdom, live notification): ok')
