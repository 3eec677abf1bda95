import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { HttpFault, SimulatorFrame } from '@solver-notifications/testkit'

/** A simulator running in a child process (see simulatorProcess.ts). */
export async function startRemoteSimulator(protocol: 'enigma' | 'rasa') {
  const child = fork(fileURLToPath(new URL('./simulatorProcess.ts', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  let next = 0
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  child.on('message', (m: { id: number; ok: boolean; reply?: unknown; error?: string }) => {
    const w = waiting.get(m.id)
    waiting.delete(m.id)
    if (m.ok) w?.resolve(m.reply)
    else w?.reject(new Error(m.error))
  })
  const call = <T>(command: Record<string, unknown>): Promise<T> =>
    new Promise((resolve, reject) => {
      const id = ++next
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject })
      child.send({ ...command, id })
    })
  const urls = await call<{ wsUrl: string; httpUrl: string; searchUrl: string; channel: string }>({ op: 'start', protocol })
  return {
    ...urls,
    pid: child.pid!,
    waitForSubscribers: (accounts: string[]) => call<null>({ op: 'waitForSubscribers', accounts }),
    publish: (frames: SimulatorFrame[], options: { repeat?: number; spread?: { accounts: string[] } } = {}) => call<null>({ op: 'publish', frames, ...options }),
    openConnections: () => call<number>({ op: 'connections' }),
    /** how many open sockets watch `account` */
    watchers: (account: string) => call<number>({ op: 'watchers', account }),
    /** every stored document id, and each quote's latest state as [quote id, state id] */
    published: () => call<{ ids: string[]; latest: Array<[number, string]> }>({ op: 'published' }),
    /** faults its HTTP answers go through, in order (e.g. every history request delayed) */
    injectHttpFaults: (faults: HttpFault[]) => call<null>({ op: 'httpFaults', faults }),
    close: () => call<null>({ op: 'close' }),
  }
}

export type RemoteSimulator = Awaited<ReturnType<typeof startRemoteSimulator>>
