import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream'
import { type KV, Kvm } from '@nats-io/kv'
import { type NatsConnection, nanos } from '@nats-io/nats-core'
import { RelayError } from './RelayError.js'

/** The bucket of watched accounts: keys `p<partition>.<chainId>.<solverId>.<lowercase account>` (`storedKey`). */
export const ACCOUNTS_BUCKET = 'solver_relay_accounts'
/** Relay heartbeats (`instances.<id>`), partition leases (`partitions.<n>`) and the deployment's `config`. */
export const LEASES_BUCKET = 'solver_relay_leases'
/** One checkpoint record per partition (its accounts' positions): where a relay that takes it over resumes. */
export const CHECKPOINTS_BUCKET = 'solver_relay_checkpoints'

/** How long JetStream remembers a `Nats-Msg-Id`: a takeover republishes at most the last seconds before it. */
const DUPLICATE_WINDOW_MS = 5 * 60_000

const SUBJECT_TOKEN = /^[-_a-zA-Z0-9]+$/

/** JetStream, its manager and the relay's three buckets. */
export interface RelayStorage {
  js: JetStreamClient
  jsm: JetStreamManager
  accounts: KV
  leases: KV
  checkpoints: KV
}

/**
 * How many copies JetStream keeps of the stream and each bucket it creates: 1 on one server; 3 on a
 * cluster (a node down then leaves every account owned). What exists keeps its own count (`check` says when
 * it differs from what was asked).
 */
export const DEFAULT_REPLICAS = 1

/** Checks a replica count: 1 to 5, as JetStream allows. */
export function checkReplicas(replicas: unknown): number {
  const n = replicas ?? DEFAULT_REPLICAS
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 5) throw new RelayError('INVALID_PARAMETERS', `replicas must be an integer from 1 to 5 (3 on a three-node cluster), got ${String(replicas)}`)
  return n
}

/** Opens JetStream and the buckets (creating what is missing, with `replicas` copies); `JETSTREAM` when the server has it off. */
export async function openStorage(nc: NatsConnection, replicas = DEFAULT_REPLICAS): Promise<RelayStorage> {
  let jsm: JetStreamManager
  try {
    jsm = await jetstreamManager(nc)
  } catch (cause) {
    throw new RelayError('JETSTREAM', `The NATS server has no JetStream (${(cause as Error)?.message ?? String(cause)}). Start it with -js (and -sd DIR to keep data).`, { cause })
  }
  const js = jetstream(nc)
  const [accounts, leases, checkpoints] = await Promise.all([openBucket(nc, ACCOUNTS_BUCKET, replicas), openBucket(nc, LEASES_BUCKET, replicas), openBucket(nc, CHECKPOINTS_BUCKET, replicas)])
  return { js, jsm, accounts, leases, checkpoints }
}

/** Opens one of the relay's KV buckets on a connection (creating it with `replicas` copies if missing). */
export async function openBucket(nc: NatsConnection, name: string, replicas = DEFAULT_REPLICAS): Promise<KV> {
  try {
    return await new Kvm(nc).create(name, { history: 1, replicas })
  } catch (cause) {
    throw new RelayError('JETSTREAM', `Could not open the KV bucket ${name}: ${(cause as Error)?.message ?? String(cause)}`, { cause })
  }
}

/** Checks a subject prefix: dot-separated tokens of letters, digits, `-` and `_`. */
export function checkSubjectPrefix(prefix: unknown): string {
  if (typeof prefix !== 'string' || prefix.split('.').some((t) => !SUBJECT_TOKEN.test(t))) {
    throw new RelayError('INVALID_PARAMETERS', `subjectPrefix must be dot-separated tokens of letters, digits, - and _ (e.g. solver.notifications), got ${JSON.stringify(prefix)}`)
  }
  return prefix
}

/**
 * Makes sure the stream exists and captures `<prefix>.>`. A stream of that name that captures other
 * subjects is someone else's: `STREAM_CONFLICT`, nothing changed.
 */
export async function ensureStream(jsm: JetStreamManager, name: string, prefix: string, replicas = DEFAULT_REPLICAS): Promise<'exists' | 'created'> {
  if (typeof name !== 'string' || !/^[-_a-zA-Z0-9]+$/.test(name)) {
    throw new RelayError('INVALID_PARAMETERS', `stream must be a JetStream stream name (letters, digits, - and _), got ${JSON.stringify(name)}`)
  }
  const wanted = `${prefix}.>`
  let subjects: string[] | undefined
  try {
    subjects = (await jsm.streams.info(name)).config.subjects ?? []
  } catch (cause) {
    if (!/not found/i.test((cause as Error)?.message ?? '')) throw new RelayError('JETSTREAM', `Could not read stream ${name}: ${(cause as Error)?.message ?? String(cause)}`, { cause })
  }
  if (subjects === undefined) {
    await jsm.streams.add({ name, subjects: [wanted], duplicate_window: nanos(DUPLICATE_WINDOW_MS), num_replicas: replicas })
    return 'created'
  }
  if (!subjects.includes(wanted) && !subjects.includes('>')) {
    throw new RelayError(
      'STREAM_CONFLICT',
      `Stream ${name} exists with subjects ${JSON.stringify(subjects)}, which do not capture ${wanted}. Pick another stream name (stream option / --stream) or subjectPrefix, or add ${wanted} to that stream.`,
    )
  }
  return 'exists'
}

/**
 * The replica count of the stream and of each bucket's stream, against what was asked: one line per
 * difference (what exists keeps its count; JetStream changes it with a stream update).
 *
 * @example
 * for (const line of await replicaDifferences(jsm, 'SOLVER_NOTIFICATIONS', 3)) console.warn(line)
 */
export async function replicaDifferences(jsm: JetStreamManager, streamName: string, replicas: number): Promise<string[]> {
  const lines: string[] = []
  for (const [what, stream] of [[`stream ${streamName}`, streamName], ...[ACCOUNTS_BUCKET, LEASES_BUCKET, CHECKPOINTS_BUCKET].map((b) => [`bucket ${b}`, `KV_${b}`])] as const) {
    const has = (await jsm.streams.info(stream)).config.num_replicas ?? 1
    if (has !== replicas) lines.push(`${what}: ${has} replica(s), asked ${replicas}: it keeps ${has} (nats stream edit ${stream} --replicas ${replicas} changes it)`)
  }
  return lines
}
