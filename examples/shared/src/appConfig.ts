import { type Address, createConfig, createNotificationsClient } from '@solver-notifications/core'

/** The example apps read their simulator URLs from the query string (the browser tests pass them) or use the dev script's ports. */
export function exampleClient(search: string, options: { crossTab?: boolean | { name?: string } } = {}) {
  const q = new URLSearchParams(search)
  const rasaPort = 8787
  const enigmaPort = 8788
  const config = createConfig({
    defaultChainId: 42161,
    chains: {
      42161: {
        defaultSolver: 'beta',
        solvers: {
          beta: {
            url: q.get('rasaHttp') ?? `http://127.0.0.1:${rasaPort}`,
            notifications: { protocol: 'rasa', url: q.get('rasaWs') ?? `ws://127.0.0.1:${rasaPort}/ws/position-state-ws3` },
          },
          alpha: {
            notifications: {
              protocol: 'enigma',
              url: q.get('enigmaWs') ?? `ws://127.0.0.1:${enigmaPort}/ws/v1/subscribe`,
              channel: q.get('enigmaChannel') ?? 'Simulator_Channel',
              searchUrl: q.get('enigmaSearch') ?? `http://127.0.0.1:${enigmaPort}/notification`,
            },
          },
        },
      },
    },
  })
  const client = createNotificationsClient({ config, reconnect: { baseDelayMs: 300, maxDelayMs: 3000 }, ...options })
  const account = (q.get('account') ?? DEMO_ACCOUNT) as Address
  return { client, config, account }
}

export const DEMO_ACCOUNT = '0xAbC0000000000000000000000000000000000001'
export const PAGE_SIZE = 5
