// What a Vercel Edge function does with the client: a live stream and a search.
import { createConfig, createNotificationsClient } from '@solver-notifications/core'

globalThis.startEdge = (ws, http, account) => {
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { url: http, notifications: { protocol: 'rasa', url: ws } } } } } })
  const client = createNotificationsClient({ config })
  const seen = []
  const subscription = client.notifications({ account }).subscribe((n) => seen.push(n.id))
  return {
    seen: () => [...seen],
    search: async () => {
      const page = await client.search({ account })
      return { kind: page.kind, rows: page.rows.length }
    },
    close: () => {
      subscription.unsubscribe()
      client.close()
    },
  }
}
