import { type EnigmaOrder, type MemorySimulator, type SimulatorProtocol, type SolverSimulator, startMemorySimulator, startSolverSimulator } from '@solver-notifications/testkit'
import type { Observable, Subscription } from 'rxjs'
import { type NotificationsClient, type NotificationsClientOptions, type SearchHttpOptions, createConfig, createNotificationsClient } from '@solver-notifications/core'

/** Accounts with mixed casing, as users paste them. */
export const accounts = [
  '0xAbC0000000000000000000000000000000000001',
  '0xABC0000000000000000000000000000000000002',
  '0xabc0000000000000000000000000000000000003',
] as const

/**
 * A simulator of each protocol and a config with one solver per simulator: on loopback (real sockets
 * and HTTP), or with `memory: true` in memory (the client gets the in-memory WebSocket and fetch;
 * for tests where a port is not the point).
 */
export async function startLive(options: Omit<Partial<NotificationsClientOptions>, 'config'> & { search?: SearchHttpOptions } = {}, simulator: { enigmaOrder?: EnigmaOrder; memory?: boolean } = {}) {
  const { memory, ...simulatorOptions } = simulator
  const start = memory ? startMemorySimulator : startSolverSimulator
  const enigma = await start({ protocol: 'enigma', channel: 'Test_Channel', ...simulatorOptions })
  const rasa = await start({ protocol: 'rasa' })
  // In memory, the simulators' WebSocket and fetch replace whatever the options name.
  const reach = memory ? (enigma as MemorySimulator).clientOptions : undefined
  const config = createConfig({
    defaultChainId: 42161,
    chains: {
      42161: {
        defaultSolver: 'alpha',
        solvers: {
          alpha: { notifications: { protocol: 'enigma', url: enigma.wsUrl, channel: enigma.channel, searchUrl: enigma.searchUrl } },
          beta: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } },
        },
      },
    },
  })
  const client = createNotificationsClient({ lingerMs: 50, ...options, ...(reach ? { WebSocket: reach.WebSocket as never, search: { ...options.search, fetch: reach.search.fetch } } : {}), config })
  const sims: Record<SimulatorProtocol, SolverSimulator> = { enigma, rasa }
  const solverOf = { enigma: 'alpha', rasa: 'beta' } as const
  return {
    enigma,
    rasa,
    sims,
    solverOf,
    config,
    client,
    async stop() {
      client.close()
      await Promise.all([enigma.close(), rasa.close()])
    },
  }
}

/** Subscribes and records every value, with a promise for "n values so far" (no sleeps). */
export function record<T>(observable: Observable<T>) {
  const values: T[] = []
  const waiters: Array<{ test: () => boolean; resolve: () => void }> = []
  let completed = false
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; i--) if (waiters[i]!.test()) waiters.splice(i, 1)[0]!.resolve()
  }
  const subscription: Subscription = observable.subscribe({
    next(value) {
      values.push(value)
      check()
    },
    complete() {
      completed = true
      check()
    },
  })
  const until = (test: () => boolean) => (test() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve })))
  return {
    values,
    subscription,
    get completed() {
      return completed
    },
    count: (n: number) => until(() => values.length >= n),
    until: (predicate: (values: T[]) => boolean) => until(() => predicate(values)),
    complete: () => until(() => completed),
  }
}

export type Live = Awaited<ReturnType<typeof startLive>>
export type { NotificationsClient }

/**
 * One simulator of `protocol` and a config whose one solver `s` (chain 1) points at it; `make()`
 * creates clients on it, `stop()` closes them and the simulator.
 */
export async function startSolver(protocol: SimulatorProtocol, simulator: { enigmaOrder?: EnigmaOrder } = {}, clientOptions: Omit<Partial<NotificationsClientOptions>, 'config'> = {}) {
  const sim = await startSolverSimulator({ protocol, ...simulator })
  const config = createConfig({
    defaultChainId: 1,
    chains: { 1: { defaultSolver: 's', solvers: { s: { url: sim.httpUrl, notifications: protocol === 'rasa' ? { protocol, url: sim.wsUrl } : { protocol, url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } },
  })
  const clients: NotificationsClient[] = []
  const make = (extra: Omit<Partial<NotificationsClientOptions>, 'config'> = {}) => {
    const client = createNotificationsClient({ config, ...clientOptions, ...extra })
    clients.push(client)
    return client
  }
  return {
    sim,
    config,
    make,
    async stop() {
      for (const c of clients) c.close()
      await sim.close()
    },
  }
}
