import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { endProcess, freePort, spawnNatsServer } from './natsServer.js'

/** One node of a {@link startCluster} cluster. */
export interface ClusterNode {
  readonly name: string
  readonly url: string
  /** SIGKILL, store kept (a crashed machine); `start()` brings it back on the same port and store */
  kill(): Promise<void>
  start(): Promise<void>
  readonly running: boolean
}

/**
 * Whether every one of `streams` has a leader and all its other replicas listed, online and current:
 * what an operator's rolling restart waits for before the next node goes. (On nats-server 2.9 a killed
 * node stays listed, not current, and is current again about a second after it is back; the count
 * also refuses a stream whose peer set is still being changed.)
 */
export async function replicasCurrent(jsm: JetStreamManager, streams: readonly string[], replicas = 3): Promise<boolean> {
  for (const stream of streams) {
    const info = await jsm.streams.info(stream).catch(() => undefined)
    const others = info?.cluster?.replicas ?? []
    if (!info?.cluster?.leader || others.length !== replicas - 1 || others.some((r) => !r.current || r.offline)) return false
  }
  return true
}

/**
 * A JetStream cluster of real `nats-server`s on loopback (routes between them, JetStream on each, a store
 * directory each): what a production deployment runs, to test replicated buckets and streams. Resolves
 * once the cluster has a JetStream meta leader (it answers account info).
 */
export async function startCluster(size = 3): Promise<{ nodes: ClusterNode[]; servers: string[]; close(): Promise<void> }> {
  const ports = await Promise.all(Array.from({ length: size }, async () => ({ client: await freePort(), route: await freePort() })))
  const dirs = ports.map(() => mkdtempSync(join(tmpdir(), 'relay-cluster-')))
  const nodes = ports.map((port, i): ClusterNode & { stop(): Promise<void> } => {
    let child: ChildProcess | undefined
    const name = `n${i + 1}`
    const routes = ports.filter((_, j) => j !== i).map((p) => `nats://127.0.0.1:${p.route}`).join(',')
    const end = (signal: NodeJS.Signals) => {
      const proc = child
      child = undefined
      return endProcess(proc, signal)
    }
    const node = {
      name,
      url: `nats://127.0.0.1:${port.client}`,
      get running() {
        return child !== undefined
      },
      async start() {
        child = await spawnNatsServer(['-js', '-a', '127.0.0.1', '-p', String(port.client), '-n', name, '-sd', dirs[i]!, '--cluster_name', 'relay-test', '--cluster', `nats://127.0.0.1:${port.route}`, '--routes', routes], `nats-server ${name}`)
      },
      kill: () => end('SIGKILL'),
      stop: () => end('SIGTERM'),
    }
    return node
  })
  await Promise.all(nodes.map((n) => n.start()))
  const servers = nodes.map((n) => n.url)
  // A meta leader is elected a moment after the routes form: until then JetStream requests fail.
  const nc = await connect({ servers })
  try {
    const deadline = Date.now() + 30_000
    for (;;) {
      try {
        // jetstreamManager asks for the account's JetStream info: it fails until there is a leader.
        await (await jetstreamManager(nc)).getAccountInfo()
        break
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the cluster elected no JetStream leader in 30 s: ${(error as Error).message}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
  } finally {
    await nc.close()
  }
  return {
    nodes,
    servers,
    async close() {
      await Promise.all(nodes.map((n) => n.stop()))
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    },
  }
}
