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
  /** the OTEL bench: this client's OpenTelemetry metrics from now on (`none`: off), then a collection */
  | { op: 'instrument'; as: Instrumented | 'none' }
  | { op: 'exit' }

/** How the OTEL bench instruments a client (packages/otel/bench/meteredClient.ts). */
type Instrumented = 'instrumented' | 'counted' | 'listener'

interface Side {
  subscribeAll(list: readonly string[], onFrame: () => void): void
  unsubscribeAll(): void
  close(): void
}

let side: Side
let onFrame = () => {}
/** our client, for the OTEL bench to instrument, and how to stop its instrumentation */
let oursClient: NotificationsClient | undefined
let uninstrument: (() => void) | undefined

function ours(url: string, lingerMs: number | undefined, warm: string): Side {
  const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { notifications: { protocol: 'rasa', url } } } } } })
  const client: NotificationsClient = createNotificationsClient({ config, ...(lingerMs === undefined ? {} : { lingerMs }) })
  oursClient = client
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
      side = command.side === 'hand-written' ? reference(command.url, command.warm) : ours(command.url, command.lingerMs, command.warm)
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
    case 'instrument': {
      // The OTEL bench: the same client, with OpenTelemetry metrics on in one of three ways or off, in
      // turns within one process (one heap, one JIT: what differs between the turns is the metrics).
      uninstrument?.()
      uninstrument = undefined
      if (command.as !== 'none') {
        const metered = (await import('../../otel/bench/meteredClient.js')) as { instrument: (client: NotificationsClient, as: Instrumented) => () => void }
        uninstrument = metered.instrument(oursClient!, command.as)
      }
      ;(globalThis as { gc?: () => void }).gc?.()
      reply('instrumented')
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
