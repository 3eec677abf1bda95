import type { NotificationsConfig, NotificationsConfigInput } from '@solver-notifications/core'
import { type NatsTarget, openNats } from './natsConnection.js'
import { ACCOUNTS_BUCKET, CHECKPOINTS_BUCKET, LEASES_BUCKET, checkReplicas, checkSubjectPrefix, ensureStream, openStorage, replicaDifferences } from './relayStorage.js'
import { resolveConfig } from './startRelay.js'

/**
 * What `solver-relay check` does: validates the config, connects to NATS (with its credentials and
 * TLS), and verifies or creates the stream and the three buckets, without taking any account. Returns
 * what it found, one line each; throws the `RelayError` a relay would (bad input, NATS unreachable or refusing).
 *
 * @example
 * for (const line of await checkRelaySetup({ config, nats: { servers: 'nats://127.0.0.1:4222' } })) console.log(line)
 */
export async function checkRelaySetup(options: {
  config: NotificationsConfigInput | NotificationsConfig
  nats: NatsTarget
  stream?: string | undefined
  subjectPrefix?: string | undefined
  /** copies of the stream and buckets to create with, and to compare what exists against (default 1) */
  replicas?: number | undefined
}): Promise<string[]> {
  const replicas = checkReplicas(options.replicas)
  const config = resolveConfig(options.config)
  const prefix = checkSubjectPrefix(options.subjectPrefix ?? 'solver.notifications')
  const stream = options.stream ?? 'SOLVER_NOTIFICATIONS'
  const solvers = Object.entries(config.chains).flatMap(([chainId, chain]) => Object.keys(chain.solvers).map((solverId) => `${chainId}.${solverId}`))
  const lines = [`config: ok (${solvers.length} solver(s): ${solvers.join(', ')})`]
  const { nc, owned } = await openNats(options.nats, 'solver-relay check')
  try {
    lines.push(`nats: connected (server ${nc.info?.server_name ?? '?'}, version ${nc.info?.version ?? '?'})`)
    const storage = await openStorage(nc, replicas)
    const result = await ensureStream(storage.jsm, stream, prefix, replicas)
    lines.push(`stream ${stream}: ${result === 'created' ? 'created' : 'exists'}, captures ${prefix}.>`)
    lines.push(`buckets: ${[ACCOUNTS_BUCKET, LEASES_BUCKET, CHECKPOINTS_BUCKET].join(', ')} ok (${(await storage.accounts.status()).values} account(s) watched)`)
    const differences = await replicaDifferences(storage.jsm, stream, replicas)
    lines.push(...(differences.length > 0 ? differences : [`replicas: ${replicas} for the stream and every bucket, as asked`]))
  } finally {
    if (owned) await nc.close()
  }
  return lines
}
