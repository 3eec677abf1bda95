// A client in Bun or Deno against a simulator running in Node: one live notification, then a search.
import { createConfig, createNotificationsClient } from '@solver-notifications/core'

const account = '0xAbC0000000000000000000000000000000000001'
const urls = JSON.parse(process.env.SIM_URLS)
const protocol = process.env.SIM_PROTOCOL
const notifications = protocol === 'rasa' ? { protocol, url: urls.wsUrl } : { protocol, url: urls.wsUrl, channel: urls.channel, searchUrl: urls.searchUrl }
const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: urls.httpUrl, notifications } } } } })
const client = createNotificationsClient({ config })
const n = await new Promise((resolve) => {
  const sub = client.notifications({ account }).subscribe((value) => {
    sub.unsubscribe()
    resolve(value)
  })
})
const page = await client.search({ account })
client.close()
if (n.quoteId !== 7 || page.rows.length !== 1) throw new Error(`unexpected ${n.quoteId} / ${page.rows.length}`)
console.log(`${process.env.RUNTIME} ${protocol}: subscribe and search ok`)
process.exit(0)
