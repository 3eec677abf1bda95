import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { startRemoteSimulator } from '../../core/bench/remoteSimulator.js'
import { spawnRelay, stopRelay } from '../test/cluster.js'
import type { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { storedKey } from '../src/deployment.js'
import { DEFAULT_PARTITIONS, assignPartitions } from '../src/partitions.js'
import { ACCOUNTS_BUCKET, LEASES_BUCKET } from '../src/relayStorage.js'

const RELAYS = Number(process.env.RELAY_SLOW_RELAYS ?? 3)
const ACCOUNTS = Number(process.env.RELAY_SLOW_ACCOUNTS ?? 4_000)
/** How long history stays slow: the full 300 s by hand, 60 s in CI (`RELAY_SLOW_SECONDS` sets it). */
const SECONDS = Number(process.env.RELAY_SLOW_SECONDS ?? (process.env.CI ? 60 : 300))
const LEASE_TTL_MS = 15_000
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const address = (i: number) => `0x${(0x510e000 + i).toString(16).padStart(40, '0')}`

function metric(text: string, name: string, label?: string): number {
  let sum = 0
  for (const line of text.split('\n')) {
    if (!(line.startsWith(`${name} `) || line.startsWith(`${name}{`))) continue
    if (label && !line.includes(label)) continue
    sum += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return sum
}

async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`slow-history bench: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * Slow history, no kill: relay processes share rasa accounts while every history request (each
 * account's first backfill, every reconnect's) answers after 1–2 s. Liveness must not wait for that
 * work: no `LEASE_LOST`, no heartbeat older than the lease TTL, and at every sample (each second, from
 * the relays' own `/metrics`) the owned total equals the accounts: none unowned, none owned twice.
 */
export async function slowHistoryBench(nats: Awaited<ReturnType<typeof startNats>>): Promise<boolean> {
  const rasa = await startRemoteSimulator('rasa')
  // Enough delayed answers for every request of the run; 1–2 s each, spread evenly.
  await rasa.injectHttpFaults(Array.from({ length: ACCOUNTS * 3 }, (_, i) => ({ delayMs: 1_000 + ((i * 389) % 1_000) })))
  const config = { defaultChainId: 1, chains: { 1: { defaultSolver: 'beta', solvers: { beta: { url: rasa.httpUrl, notifications: { protocol: 'rasa', url: rasa.wsUrl } } } } } }
  const file = join(mkdtempSync(join(tmpdir(), 'relay-slow-')), 'solvers.json')
  writeFileSync(file, JSON.stringify(config))
  const relays = Array.from({ length: RELAYS }, (_, i) => spawnRelay(file, nats.url, `slow-${i + 1}`, ['--lease-ttl-ms', String(LEASE_TTL_MS), '--http', '127.0.0.1:0', '--log-format', 'json', ...(process.env.RELAY_SLOW_TRACE ? ['--log-level', 'debug'] : [])]))
  const httpOf = (relay: (typeof relays)[number]) => /"http":"([^"]+)"/.exec(relay.output.join(''))?.[1]
  for (const relay of relays) await until(() => httpOf(relay) !== undefined, `${relay.id} to start`, 60_000)
  const scrape = async (relay: (typeof relays)[number]) => (await fetch(`http://${httpOf(relay)}/metrics`)).text()

  const nc = await connect({ servers: nats.url })
  const kvm = new Kvm(nc)
  // Heartbeats seen in the bucket itself: the longest gap between two of one relay's.
  const lastBeat = new Map<string, number>()
  let longestGapMs = 0
  const leases = await kvm.create(LEASES_BUCKET, { history: 1 })
  const beats = await leases.watch({ key: 'instances.*' })
  // The members and partition leases as the relays see them (their heartbeats' and leases' own expiries).
  const members = new Map<string, number>()
  const holders = new Map<number, { owner: string; expires: number }>()
  void (async () => {
    for await (const e of beats) {
      const member = e.key.slice('instances.'.length)
      if (e.operation !== 'PUT') {
        members.delete(member)
        continue
      }
      members.set(member, Number(e.json<{ expires?: number }>().expires ?? 0))
      const now = Date.now()
      const before = lastBeat.get(e.key)
      if (before !== undefined) longestGapMs = Math.max(longestGapMs, now - before)
      lastBeat.set(e.key, now)
    }
  })()

  const leaseWatch = await leases.watch({ key: 'partitions.*' })
  void (async () => {
    for await (const e of leaseWatch) {
      const partition = Number(e.key.slice('partitions.'.length))
      if (e.operation !== 'PUT') holders.delete(partition)
      else holders.set(partition, e.json<{ owner: string; expires: number }>())
    }
  })()
  /** Every partition held by a live relay, and the plan the relays compute from that moves nothing more. */
  const settled = () => {
    const now = Date.now()
    const live = [...members].filter(([, expires]) => expires > now).map(([id]) => ({ id }))
    const ownerOf = (p: number) => {
      const lease = holders.get(p)
      return lease && lease.expires > now ? lease.owner : undefined
    }
    const plan = assignPartitions(DEFAULT_PARTITIONS, live, ownerOf)
    for (let p = 0; p < DEFAULT_PARTITIONS; p++) if (ownerOf(p) === undefined || plan.owners[p] !== ownerOf(p)) return false
    return true
  }

  const accounts = await kvm.create(ACCOUNTS_BUCKET, { history: 1 })
  const keys = Array.from({ length: ACCOUNTS }, (_, i) => accountKey(1, 'beta', address(i)))
  for (let i = 0; i < keys.length; i += 1_000) await Promise.all(keys.slice(i, i + 1_000).map((k) => accounts.put(storedKey(k, DEFAULT_PARTITIONS), '{}')))
  const owned = async () => (await Promise.all(relays.map(async (r) => metric(await scrape(r), 'solver_relay_accounts_owned')))).reduce((a, b) => a + b, 0)
  await until(async () => (await owned()) === ACCOUNTS, 'every account owned', 120_000)
  // Sampled once the partitions are spread (the first relay up takes them all, the others then claim
  // their share): from then on nothing should move.
  const partitionsOwned = async () => Promise.all(relays.map(async (r) => metric(await scrape(r), 'solver_relay_partitions_owned')))
  // Spread: the partitions at the plan's fixed point (every one held by a live relay, and the plan the
  // relays compute from those leases moves none), the relays' own counts adding up, and that split seen
  // three seconds running. Not "each at its share": rendezvous hashing can leave a relay a few below the
  // mean for good (it claims only the partitions it scores highest for).
  let seen = ''
  let same = 0
  const spreadFrom = Date.now()
  await until(
    async () => {
      const now = await partitionsOwned()
      const text = now.join('/')
      same = text === seen && now.reduce((a, b) => a + b, 0) === DEFAULT_PARTITIONS && settled() ? same + 1 : 0
      seen = text
      await new Promise((r) => setTimeout(r, 1_000))
      return same >= 3
    },
    'the partitions spread',
    120_000,
  ).catch((error: Error) => {
    // A finding: what the split was and what each relay last said about its partitions.
    console.error(`RELAY slow history: the partitions never spread: last split ${seen} of ${DEFAULT_PARTITIONS}, ${settled() ? 'at' : 'not at'} the plan's fixed point`)
    for (const relay of relays) {
      const lines = relay.output
        .join('')
        .split('\n')
        .filter((l) => /partitions moved|took over|lost partition|"level":"?(40|warn)|"msg":"round"/.test(l))
      console.error(`${relay.id}:\n${lines.slice(-25).join('\n')}`)
    }
    throw error
  })

  const spreadSeconds = (Date.now() - spreadFrom) / 1000
  if (process.env.RELAY_SLOW_TRACE) {
    for (const relay of relays) for (const line of relay.output.join('').split('\n')) if (/partitions moved|took over|"msg":"round"|relay started/.test(line)) console.log(`${relay.id}: ${line}`)
  }
  const started = Date.now()
  let samples = 0
  let wrong = 0
  let highest = 0
  const misses: string[] = []
  while (Date.now() - started < SECONDS * 1_000) {
    const total = await owned()
    samples++
    highest = Math.max(highest, total)
    if (total !== ACCOUNTS) {
      wrong++
      misses.push(`${fmt(total)} at ${((Date.now() - started) / 1000).toFixed(0)} s (partitions ${(await partitionsOwned()).join('/')})`)
    }
    await new Promise((r) => setTimeout(r, 1_000))
  }
  const texts = await Promise.all(relays.map(scrape))
  const leaseLost = texts.reduce((sum, t) => sum + metric(t, 'solver_relay_errors_total', 'code="LEASE_LOST"'), 0)
  const takeovers = texts.reduce((sum, t) => sum + metric(t, 'solver_relay_lease_takeovers_total'), 0)
  beats.stop()
  leaseWatch.stop()
  await Promise.all(relays.map(stopRelay))
  // A drain hands every partition back: nothing may be left leased by a relay that is gone.
  let leftLeased = 0
  for await (const key of await leases.keys('partitions.>')) {
    const e = await leases.get(key)
    if (e?.operation === 'PUT') leftLeased++
  }
  const exitCodes = relays.map((r) => r.child.exitCode)
  // The next bench starts from an empty bucket: these accounts' simulator is gone.
  await Promise.all(keys.map((k) => accounts.delete(storedKey(k, DEFAULT_PARTITIONS))))
  await nc.close()
  await rasa.close()

  const pass = leaseLost === 0 && longestGapMs < LEASE_TTL_MS && wrong === 0 && leftLeased === 0
  console.log(
    `RELAY slow history: ${RELAYS} relays, ${fmt(ACCOUNTS)} rasa accounts, every history request 1–2 s, ${SECONDS} s (sampled after the partitions spread, ${spreadSeconds.toFixed(0)} s after every account was owned): LEASE_LOST ${leaseLost}, takeovers ${takeovers}, longest heartbeat gap ${(longestGapMs / 1000).toFixed(1)} s (TTL ${LEASE_TTL_MS / 1000} s), owned = accounts at ${samples - wrong} of ${samples} samples (highest ${fmt(highest)}); after the drain: exit codes ${exitCodes.join('/')}, partitions still leased ${leftLeased} ${pass ? 'PASS' : 'MISS'}${misses.length > 0 ? `; samples off: ${misses.join(', ')}` : ''}`,
  )
  // A MISS is a finding: the relays' own warnings say what happened (grouped, digits folded).
  if (!pass) {
    const warnings = new Map<string, number>()
    for (const relay of relays) {
      for (const line of relay.output.join('').split('\n')) {
        if (!line.includes('"level":40')) continue
        const msg = (/"msg":"([^"]*)"/.exec(line)?.[1] ?? line).replace(/\d+/g, '#').slice(0, 140)
        warnings.set(`${relay.id}: ${msg}`, (warnings.get(`${relay.id}: ${msg}`) ?? 0) + 1)
      }
    }
    for (const [what, n] of warnings) console.log(`RELAY slow history: ${n} × ${what}`)
  }
  return pass
}
