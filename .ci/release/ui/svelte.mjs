// Svelte from its tarball: a component using the rune helpers, compiled and rendered on the server.
import { render } from 'svelte/server'
import App from './App.svelte'
import { account, check, startSmoke } from './shared.mjs'

const smoke = await startSmoke()
const client = smoke.client()
const { body } = render(App, { props: { client, account } })
check(body.includes('status:idle') && body.includes('quotes:0'), `server HTML, got ${body}`)
check(client.stats().sockets === 0, 'server rendering opened no socket')
await smoke.stop()
console.log('svelte (compiled, server-rendered with useNotifications and useQuotes): ok')
