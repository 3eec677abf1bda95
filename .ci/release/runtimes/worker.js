// A Cloudflare Worker: a client per request for search, one inside a Durable Object for a live
// stream that outlives requests, and the anti-pattern (a client at module scope used by a second
// request), which must end with CROSS_REQUEST instead of reconnecting for ever.
import { createConfig, createNotificationsClient } from '@solver-notifications/core'

const configOf = (env) => createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: env.SIM_HTTP, notifications: { protocol: 'rasa', url: env.SIM_WS } } } } } })
// Statuses, errors and notifications: what the checks compare (continuity values are checked in core's own tests).
const label = (e) => (e.type === 'status' ? e.status : e.type === 'error' ? e.error.code : `n:${e.notification.id}`)

export class Live {
  constructor(_state, env) {
    this.client = createNotificationsClient({ config: configOf(env) })
    this.events = []
  }
  async fetch(request) {
    const url = new URL(request.url)
    if (url.pathname === '/watch') this.client.events({ account: url.searchParams.get('account') }).subscribe((e) => e.type !== 'continuity' && this.events.push(label(e)))
    return Response.json({ events: this.events })
  }
}

let moduleClient
const moduleEvents = []

export default {
  async fetch(request, env) {
    const url = new URL(request.url)
    const account = url.searchParams.get('account')
    if (url.pathname === '/search') {
      const client = createNotificationsClient({ config: configOf(env) })
      try {
        const page = await client.search({ account })
        return Response.json({ kind: page.kind, rows: page.rows.length })
      } finally {
        client.close()
      }
    }
    if (url.pathname.startsWith('/do/')) return env.LIVE.get(env.LIVE.idFromName('one')).fetch(new Request(`http://do${url.pathname.slice(3)}${url.search}`))
    if (url.pathname === '/module') {
      moduleClient ??= createNotificationsClient({ config: configOf(env) })
      const from = moduleEvents.length
      moduleClient.events({ account }).subscribe((e) => e.type !== 'continuity' && moduleEvents.push(label(e)))
      // This request lives until its stream is open or closed: a socket belongs to the request that opened it.
      for (let i = 0; i < 250 && !moduleEvents.slice(from).some((e) => e === 'open' || e === 'closed'); i++) await new Promise((r) => setTimeout(r, 20))
      return Response.json({ events: moduleEvents })
    }
    return new Response('not found', { status: 404 })
  },
}
