import { type NotificationsClient, createConfig, createNotificationsClient } from '@solver-notifications/core'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import WebSocket from 'ws'
import { NotificationsProvider } from './NotificationsProvider.js'

/** Test harness: a rasa and an enigma simulator on loopback and a client wired to both (Node `ws`). */
export async function startHarness() {
  const rasa = await startSolverSimulator({ protocol: 'rasa' })
  const enigma = await startSolverSimulator({ protocol: 'enigma' })
  const config = createConfig({
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 'beta',
        solvers: {
          beta: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } },
          alpha: { notifications: { protocol: 'enigma', url: enigma.wsUrl, channel: enigma.channel, searchUrl: enigma.searchUrl } },
        },
      },
    },
  })
  const client = createNotificationsClient({ config, WebSocket: WebSocket as never, lingerMs: 30 })
  const queryClient = new QueryClient()
  const wrapper = ({ children }: { children?: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <NotificationsProvider client={client}>{children}</NotificationsProvider>
    </QueryClientProvider>
  )
  return {
    rasa,
    enigma,
    client: client as NotificationsClient<typeof config extends { '~input'?: infer I } ? NonNullable<I> : never>,
    wrapper,
    openSockets: (sim: SolverSimulator) => sim.connections().filter((c) => c.open).length,
    async stop() {
      queryClient.clear()
      client.close()
      await Promise.all([rasa.close(), enigma.close()])
    },
  }
}
export type Harness = Awaited<ReturnType<typeof startHarness>>
