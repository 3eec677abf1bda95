import { LAYOUT, type Deployment, liveCounts, parseStoredKey } from './deployment.js'
import { type NatsTarget, openNats } from './natsConnection.js'
import { partitionOf } from './partitions.js'
import { RelayError } from './RelayError.js'
import { LEASES_BUCKET, openStorage } from './relayStorage.js'

/** The partition counts a deployment may have (as `--partitions` allows). */
const MAX_PARTITIONS = 65_536

/** What {@link repairConfig} did. */
export interface ConfigRepair {
  /** false when the stored config was readable: nothing written */
  repaired: boolean
  partitions: number
  layout: number
  /** what the partition count was read from */
  evidence: string
}

/**
 * Rewrites an unreadable deployment config (key `config` in the leases bucket) of a running layout-3 deployment,
 * by revision, with the partition count the deployment already uses: the one every stored account key agrees
 * with (`p<n>.<key>` where `n = partitionOf(key, P)`), preferring the count of partitions leased when several
 * agree, and the count the live relays announce in their heartbeats before anything else; `partitions` (from
 * `--partitions`) is checked against those and the keys (with no keys, against the leased partitions), never
 * trusted alone. Running relays go on meanwhile (they read the config only at start); the relays refused with
 * `LAYOUT` start after it.
 *
 * @example
 * const { repaired, partitions } = await repairConfig({ servers: 'nats://127.0.0.1:4222' })
 */
export async function repairConfig(nats: NatsTarget, options: { partitions?: number | undefined } = {}): Promise<ConfigRepair> {
  const { nc, owned } = await openNats(nats, 'solver-relay repair-config')
  try {
    const { accounts, leases } = await openStorage(nc)
    const entry = await leases.get('config')
    const readable = entry?.operation === 'PUT' ? readableConfig(entry.string()) : undefined
    if (readable) return { repaired: false, ...readable, evidence: 'the stored config (readable: nothing to repair)' }

    const stored: Array<{ key: string; partition: number }> = []
    for await (const key of await accounts.keys()) {
      const parsed = parseStoredKey(key)
      if (parsed) stored.push(parsed)
    }
    let leased = 0
    for await (const key of await leases.keys('partitions.>')) leased = Math.max(leased, Number(key.slice('partitions.'.length)) + 1 || 0)
    const live = await liveCounts(leases)
    const { partitions, evidence } = partitionCount(stored, leased, options.partitions, live)
    const text = JSON.stringify({ layout: LAYOUT, partitions })
    // By revision: a relay or another repair that wrote meanwhile wins, and this run says so.
    try {
      if (entry) await leases.update('config', text, entry.revision)
      else await leases.create('config', text)
    } catch (error) {
      throw new RelayError('LAYOUT', `The config in ${LEASES_BUCKET} changed while it was being repaired (${(error as Error)?.message ?? String(error)}); run repair-config again to see what it holds now.`)
    }
    return { repaired: true, layout: LAYOUT, partitions, evidence }
  } finally {
    if (owned) await nc.close()
  }
}

/** A config a relay can start from, or undefined. */
function readableConfig(text: string): Deployment | undefined {
  try {
    const value = JSON.parse(text) as { layout?: unknown; partitions?: unknown }
    const partitions = Number(value?.partitions)
    const layout = Number(value?.layout ?? 1)
    return Number.isInteger(partitions) && partitions >= 1 ? { layout, partitions } : undefined
  } catch {
    return undefined
  }
}

/**
 * The partition count the stored keys agree with. Each key is stored under `partitionOf(key, P)`: a wrong `P`
 * puts almost every key elsewhere, so a few keys already leave one count.
 */
function partitionCount(stored: ReadonlyArray<{ key: string; partition: number }>, leased: number, asked: number | undefined, live: ReadonlySet<number>): { partitions: number; evidence: string } {
  const fits = (p: number) => stored.every((s) => s.partition < p && partitionOf(s.key, p) === s.partition)
  const keys = `${stored.length.toLocaleString('en-US')} account key(s)`
  // What the live relays run with (their heartbeats say it): a count that disagrees would start a relay
  // beside them on another partitioning, and accounts added afterwards would be owned by nobody.
  const running = [...live][0]
  if (live.size > 1) throw new RelayError('LAYOUT', `The live relays run with different partition counts (${[...live].join(', ')}): drain them and run "solver-relay migrate".`)
  if (asked !== undefined) {
    if (running !== undefined && asked !== running) throw new RelayError('INVALID_PARAMETERS', `--partitions ${asked} disagrees with the live relays, which run with ${running} partitions (their heartbeats): leave --partitions out, or pass ${running}.`)
    if (running === undefined && stored.length === 0 && leased > asked) throw new RelayError('INVALID_PARAMETERS', `--partitions ${asked} disagrees with the partitions leased (0 to ${leased - 1}): leave --partitions out to let the leases tell the count.`)
    const wrong = stored.find((s) => s.partition >= asked || partitionOf(s.key, asked) !== s.partition)
    if (wrong) throw new RelayError('INVALID_PARAMETERS', `--partitions ${asked} does not fit the stored keys: "p${wrong.partition}.${wrong.key}" would be under p${partitionOf(wrong.key, asked)}. Leave --partitions out to let the keys tell the count.`)
    return { partitions: asked, evidence: stored.length > 0 ? `--partitions, which fits the ${keys}` : running !== undefined ? '--partitions, which the live relays run with' : '--partitions (no account keys or live relays to check it against)' }
  }
  if (running !== undefined && fits(running)) return { partitions: running, evidence: `the live relays' heartbeats${stored.length > 0 ? ` and the ${keys}` : ''}` }
  if (stored.length === 0) {
    if (leased > 0) return { partitions: leased, evidence: `the partitions leased (0 to ${leased - 1}); no account keys` }
    throw new RelayError('INVALID_PARAMETERS', 'No account keys, live relays or partition leases tell the partition count: pass --partitions N (the value the relays logged at start, or solver_relay_partitions on their /metrics).')
  }
  const floor = Math.max(...stored.map((s) => s.partition)) + 1
  if (leased >= floor && fits(leased)) return { partitions: leased, evidence: `the ${keys} and the partitions leased (0 to ${leased - 1})` }
  const candidates: number[] = []
  for (let p = floor; p <= MAX_PARTITIONS && candidates.length < 2; p++) if (fits(p)) candidates.push(p)
  if (candidates.length === 1) return { partitions: candidates[0]!, evidence: `the ${keys} (no other count fits them)` }
  if (candidates.length === 0) throw new RelayError('LAYOUT', `No partition count fits the stored account keys (some are under another partition than their own): run "solver-relay migrate" with the relays drained.`)
  throw new RelayError('INVALID_PARAMETERS', `Several partition counts fit the ${keys} (${candidates.join(', ')}, …): pass --partitions N (the value the relays logged at start, or solver_relay_partitions on their /metrics).`)
}
