import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream'
import { Kvm } from '@nats-io/kv'
import type { NatsConnection } from '@nats-io/nats-core'
import { connect } from '@nats-io/transport-node'
import { type SolverSimulator, startSolverSimulator } from '@solver-notifications/testkit'
import { killWithParent } from './natsServer.js'
import { parseStoredKey } from '../src/deployment.js'

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url))
/** The relay package: `--import tsx` resolves from here, wherever the test runner was started. */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url))

/** The solvers config of the relay tests and benchmarks: alpha speaks enigma, beta rasa. */
export function solversConfig(
  enigma: { wsUrl: string; channel: string; searchUrl: string },
  rasa: { httpUrl: string; wsUrl: string },
) {
  return {
    defaultChainId: 1,
    chains: {
      1: {
        defaultSolver: 'beta',
        solvers: {
          alpha: { notifications: { protocol: 'enigma' as const, url: enigma.wsUrl, channel: enigma.channel, searchUrl: enigma.searchUrl } },
          beta: { url: rasa.httpUrl, notifications: { protocol: 'rasa' as const, url: rasa.wsUrl } },
        },
      },
    },
  }
}

/** Both simulators and the solvers.json a relay process reads: alpha speaks enigma, beta rasa. */
export async function startSolvers() {
  const enigma = await startSolverSimulator({ protocol: 'enigma', enigmaOrder: 'shuffled' })
  const rasa = await startSolverSimulator({ protocol: 'rasa' })
  const config = solversConfig(enigma, rasa)
  const file = join(mkdtempSync(join(tmpdir(), 'relay-config-')), 'solvers.json')
  writeFileSync(file, JSON.stringify(config))
  return { enigma, rasa, config, file, close: () => Promise.all([enigma.close(), rasa.close()]).then(() => undefined) }
}

/** A relay in its own process, as `solver-relay` runs it (from source). */
export function spawnRelay(file: string, natsUrl: string, id: string, extra: string[] = [], env: Record<string, string> = {}): { id: string; child: ChildProcess; output: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--conditions=@solver-notifications/source', '--import', 'tsx', cli, '--config', file, '--nats', natsUrl, '--instance-id', id, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: packageRoot,
    env: { ...process.env, ...env },
  })
  killWithParent(child)
  const output: string[] = []
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()))
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { id, child, output, exited }
}

/**
 * Runs `ask` until JetStream answers it, for 30 s at most: a cluster node that has just come back (or
 * whose meta leader is being elected) says "temporarily unavailable" or times out for a moment. Only
 * those answers are asked again; anything else is the observer's failure, said at once.
 */
async function whenJetStreamAnswers<T>(ask: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000
  for (;;) {
    try {
      return await ask()
    } catch (error) {
      if (!/temporarily unavailable|timeout|no responders/i.test((error as Error)?.message ?? '') || Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

/** An observer of the cluster that owns nothing: who holds which lease, and what the stream holds. */
export async function observe(natsUrl: string | string[], stream = 'SOLVER_NOTIFICATIONS') {
  const nc: NatsConnection = await connect({ servers: natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 100 })
  const { jsm, leases, accounts } = await whenJetStreamAnswers(async () => {
    const jsm: JetStreamManager = await jetstreamManager(nc)
    const kvm = new Kvm(nc)
    return { jsm, leases: await kvm.create('solver_relay_leases', { history: 1 }), accounts: await kvm.create('solver_relay_accounts', { history: 1 }) }
  })
  return {
    nc,
    /** account key → owner: the owner of its partition's lease, for leases not expired */
    async owners(): Promise<Map<string, string>> {
      const out = new Map<string, string>()
      const now = Date.now()
      const byPartition = new Map<number, string>()
      for await (const key of await leases.keys('partitions.>')) {
        const e = await leases.get(key)
        if (e?.operation !== 'PUT') continue
        const v = e.json<{ owner: string; expires: number }>()
        if (v.expires > now) byPartition.set(Number(key.slice('partitions.'.length)), v.owner)
      }
      for await (const stored of await accounts.keys()) {
        const parsed = parseStoredKey(stored)
        if (!parsed) continue
        const owner = byPartition.get(parsed.partition)
        if (owner !== undefined) out.set(parsed.key, owner)
      }
      return out
    },
    /** every message of the stream, read by sequence (an independent consumer) */
    async messages(): Promise<Array<{ subject: string; msgId: string; body: { id: string | null; quoteId: number; modifyTime: number; lastSeenAction: string; actionStatus: string; source: 'live' | 'backfill' } }>> {
      let info: Awaited<ReturnType<JetStreamManager['streams']['info']>>
      try {
        info = await jsm.streams.info(stream)
      } catch {
        return []
      }
      const out = []
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const m = await jsm.streams.getMessage(stream, { seq })
        if (m) out.push({ subject: m.subject, msgId: m.header?.get('Nats-Msg-Id') ?? '', body: m.json() as never })
      }
      return out
    },
    close: () => nc.close(),
  }
}

export async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

export type { SolverSimulator }

/** Stops a relay process gracefully (its leases are handed over) and waits for it. */
export async function stopRelay(relay: ReturnType<typeof spawnRelay>): Promise<void> {
  if (relay.child.exitCode !== null || relay.child.signalCode !== null) return
  relay.child.kill('SIGTERM')
  await relay.exited
}
