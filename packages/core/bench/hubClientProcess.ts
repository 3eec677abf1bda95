// One client of P1–P3 in its own process, driven over IPC by p-hub.ts: every round starts with a
// fresh heap, so garbage one client leaves never lands in the other's measured window.
import type { Subscription } from 'rxjs'
import { type NotificationsClient, createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { createConfig } from '../src/config/createConfig.js'
import { cpuMs, tick } from './cpu.js'
import { handWrittenHub } from './handWrittenClient.js'
import type { SideName } from './p-hub.js'

type Command =
  | { op: 'open'; side: SideName; url: string; lingerMs?: number; warm: string; warmup: string[] }
  | { op: 'subscribe'; accounts: string[]; waitMs?: number }
  | { op: 'unsubscribe'; waitMs: number }
  | { op: 'expect'; frames: number }
  | { op: 'exit' }

interface Side {
  subscribeAll(list: readonly string[], onFrame: () => void): void
  unsubscribeAll(): void
  close(): void
}

let side: Side
let onFrame = () => {}

function ours(url: string, lingerMs: number | undefined, warm: string, instrument?: (client: NotificationsClient) => void): Side {
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { notifications: { protocol: 'rasa', url } } } } } })
  const client: NotificationsClient = createNotificationsClient({ config, ...(lingerMs === undefined ? {} : { lingerMs }) })
  instrument?.(client)
  client.notifications({ account: warm as `0x${string}` }).subscribe()
  let subs: Subscription[] = []
  return {
    subscribeAll(list, next) {
      for (const account of list) subs.push(client.notifications({ account: account as `0x${string}` }).subscribe(next))
    },
    unsubscribeAll() {
      for (const sub of subs) sub.unsubscribe()
      subs = []
    },
    close: () => client.close(),
  }
}

function reference(url: string, warm: string): Side {
  const hub = handWrittenHub(url)
  hub.subscribe(warm, () => {})
  let releases: Array<() => void> = []
  return {
    subscribeAll(list, next) {
      for (const account of list) releases.push(hub.subscribe(account, next))
    },
    unsubscribeAll() {
      for (const release of releases) release()
      releases = []
    },
    close: () => hub.close(),
  }
}

process.on('message', async (command: Command) => {
  const reply = (value: unknown) => process.send!(value)
  switch (command.op) {
    case 'open': {
      // The OTEL bench: the same client with @solver-notifications/otel's metrics on (an SDK meter provider
      // whose reader exports nothing during the window: what recording costs, not exporting), the same
      // without the two per-notification histograms ('counted'), or with the API's no-op meter ('listener':
      // the seam and the package's own listener, no SDK).
      const metered = command.side === 'instrumented' || command.side === 'counted' || command.side === 'listener' ? ((await import('../../otel/bench/meteredClient.js')) as { instrument: (client: NotificationsClient, side: 'instrumented' | 'counted' | 'listener') => void }) : undefined
      const instrument = metered && ((client: NotificationsClient) => metered.instrument(client, command.side as 'instrumented' | 'counted' | 'listener'))
      side = command.side === 'hand-written' ? reference(command.url, command.warm) : ours(command.url, command.lingerMs, command.warm, instrument)
      // Warm the measured client itself (its closures carry their own JIT feedback) on other accounts,
      // wait out their linger, then let the collector catch up: the window starts hot and clean.
      for (let i = 0; i < 6; i++) {
        side.subscribeAll(command.warmup, () => {})
        await tick()
        side.unsubscribeAll()
        await tick()
      }
      await new Promise((resolve) => setTimeout(resolve, command.side === 'ours' ? (command.lingerMs ?? 2_000) + 300 : 0))
      ;(globalThis as { gc?: () => void }).gc?.()
      await new Promise((resolve) => setTimeout(resolve, 100))
      reply('opened')
      return
    }
    case 'subscribe': {
      const start = cpuMs()
      side.subscribeAll(command.accounts, () => onFrame())
      await (command.waitMs ? new Promise((resolve) => setTimeout(resolve, command.waitMs)) : tick())
      reply(cpuMs() - start)
      return
    }
    case 'unsubscribe': {
      const start = cpuMs()
      side.unsubscribeAll()
      await (command.waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, command.waitMs)) : tick())
      reply(cpuMs() - start)
      return
    }
    case 'exit':
      process.exit(0)
      return
    case 'expect': {
      let seen = 0
      const start = cpuMs()
      onFrame = () => {
        if (++seen === command.frames) {
          reply(cpuMs() - start)
        }
      }
      reply('ready')
      return
    }
  }
})
