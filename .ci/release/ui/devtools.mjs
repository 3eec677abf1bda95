// Devtools from its tarball: mounted in happy-dom, it shows the live socket of a stream.
import { Window } from 'happy-dom'
import { account, check, startSmoke, until } from './shared.mjs'

const window = new Window({ url: 'http://localhost/' })
for (const key of ['window', 'document', 'HTMLElement', 'customElements', 'Node', 'Event', 'navigator']) {
  Object.defineProperty(globalThis, key, { value: key === 'window' ? window : window[key], configurable: true, writable: true })
}
const { mountDevtools } = await import('@solver-notifications/devtools')
const smoke = await startSmoke()
const client = smoke.client()
const subscription = client.notifications({ account }, { resume: true }).subscribe()
await smoke.sim.waitForSubscribers(account)
// Closed, it shows only its toggle: the smoke opens it as a person would.
const unmount = mountDevtools(client, undefined, { initialIsOpen: false })
document.body.querySelector('solver-notifications-devtools').shadowRoot.querySelector('button.toggle').click()
const text = () => {
  const panel = document.body.querySelector('solver-notifications-devtools')
  return `${panel?.shadowRoot?.textContent ?? ''}${panel?.textContent ?? ''}`
}
await until('the panel to show the open rasa socket', () => text().includes('rasa') && text().includes('open'))
check(text().toLowerCase().includes(account.toLowerCase()), `the panel names the account, got ${text().slice(0, 300)}`)
unmount()
check(document.body.querySelector('solver-notifications-devtools') === null, 'unmount removes the panel')
subscription.unsubscribe()
await smoke.stop()
await window.happyDOM.abort()
console.log('devtools (mounted in happy-dom, shows the socket and the stream): ok')
