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

/** Opens JetStream and the buckets (creating what is missing); `JETSTREAM` when the server has it off. */
export async function openStorage(nc: NatsConnection): Promise<RelayStorage> {
  let jsm: JetStreamManager
  try {
    jsm = await jetstreamManager(nc)
  } catch (cause) {
    throw new RelayError('JETSTREAM', `The NATS server has no JetStream (${(cause as Error)?.message ?? String(cause)}). Start it with -js (and -sd DIR to keep data).`, { cause })
  }
  const js = jetstream(nc)
  const [accounts, leases, checkpoints] = await Promise.all([openBucket(nc, ACCOUNTS_BUCKET), openBucket(nc, LEASES_BUCKET), openBucket(nc, CHECKPOINTS_BUCKET)])
  return { js, jsm, accounts, leases, checkpoints }
}

/** Opens one of the relay's KV buckets on a connection (creating it if missing). */
export async function openBucket(nc: NatsConnection, name: string): Promise<KV> {
  try {
    return await new Kvm(nc).create(name, { history: 1 })
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
export async function ensureStream(jsm: JetStreamManager, name: string, prefix: string): Promise<'exists' | 'created'> {
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
    await jsm.streams.add({ name, subjects: [wanted], duplicate_window: nanos(DUPLICATE_WINDOW_MS) })
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
