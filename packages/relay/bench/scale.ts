import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jetstream, jetstreamManager } from '@nats-io/jetstream'
import { KvWatchInclude, Kvm } from '@nats-io/kv'
import { connect } from '@nats-io/transport-node'
import { startRemoteSimulator } from '../../core/bench/remoteSimulator.js'
import { heapAfterGc, inspectorUrlOf } from './heapAfterGc.js'
import { solversConfig, spawnRelay } from '../test/cluster.js'
import type { startNats } from '../test/natsServer.js'
import { accountKey } from '../src/accountKeys.js'
import { storedKey } from '../src/deployment.js'
import { DEFAULT_PARTITIONS } from '../src/partitions.js'
import { consumeNotifications } from '../src/consumeNotifications.js'
import { ACCOUNTS_BUCKET, CHECKPOINTS_BUCKET, LEASES_BUCKET } from '../src/relayStorage.js'

// By hand the full figures: 100,000 rasa + 2,000 enigma accounts on 10 relay processes. In CI a small
// configuration (20,000 + 2,000 on 4) keeps `.ci/run` short; each can be set.
const FULL = !process.env.CI
const RASA_ACCOUNTS = Number(process.env.RELAY_SCALE_RASA ?? (FULL ? 100_000 : 20_000))
const ENIGMA_ACCOUNTS = Number(process.env.RELAY_SCALE_ENIGMA ?? 2_000)
const RELAYS = Number(process.env.RELAY_SCALE_RELAYS ?? (FULL ? 10 : 4))
const LEASE_TTL_MS = 15_000
/** A SIGKILL's partitions re-owned within the lease TTL and this. */
const REOWN_SLACK_MS = 2_000
/** How long idle KV writes are counted. */
const IDLE_WINDOW_MS = 15_000
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const address = (i: number) => `0x${(0x5ca1e000 + i).toString(16).padStart(40, '0')}`

const trace = (what: string) => {
  if (process.env.RELAY_SCALE_TRACE) console.log(`[scale] ${new Date().toISOString().slice(11, 23)} ${what}`)
}

async function until(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`scale bench: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The value of one metric line of a Prometheus text (summed over its label sets). */
function metric(text: string, name: string): number {
  let sum = 0
  for (const line of text.split('\n')) if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1))
  return sum
}

/**
 * The relay at scale, as an operator runs it: 10 `solver-relay` processes share 100,000 rasa accounts
 * (hub sockets) and 2,000 enigma accounts (a socket each) — 4 and 20,000 rasa in CI —, lifecycles are published before and after
 * one relay is killed with SIGKILL, and an independent consumer (`consumeNotifications`) checks the
 * stream: every enigma transition exactly once, every rasa quote's latest state. Figures come from the
 * relays' own `/metrics`, scraped during the run.
 */
export async function scaleBench(nats: Awaited<ReturnType<typeof startNats>>): Promise<void> {
  const [enigma, rasa] = await Promise.all([startRemoteSimulator('enigma'), startRemoteSimulator('rasa')])
  const config = solversConfig(enigma, rasa)
  const file = join(mkdtempSync(join(tmpdir(), 'relay-scale-')), 'solvers.json')
  writeFileSync(file, JSON.stringify(config))
  // Each relay opens its inspector on loopback: the heap per account is measured after forced collections in every process.
  const inspect = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim() }
  const relays = Array.from({ length: RELAYS }, (_, i) =>
    spawnRelay(file, nats.url, `scale-${i + 1}`, ['--lease-ttl-ms', String(LEASE_TTL_MS), '--http', '127.0.0.1:0', '--log-format', 'json', ...(process.env.RELAY_SCALE_TRACE ? ['--log-level', 'debug'] : [])], inspect),
  )
  for (const relay of relays) await until(() => relay.output.join('').includes('"msg":"relay started"'), `${relay.id} to start`, 60_000)
  const scrape = async (i: number) => (await fetch(`http://${httpOf(relays[i]!)}/metrics`)).text()
  const sum = async (alive: number[], name: string) => (await Promise.all(alive.map(async (i) => metric(await scrape(i), name)))).reduce((a, b) => a + b, 0)
  const heap = (alive: number[]) => sum(alive, 'nodejs_heap_size_used_bytes')
  const everyone = relays.map((_, i) => i)
  await until(async () => (await Promise.all(everyone.map(async (i) => (await fetch(`http://${httpOf(relays[i]!)}/readyz`)).status))).every((s) => s === 200), 'every relay ready', 60_000)
  const heapBefore = await heap(everyone)
  /** Every relay's heap after forced collections, summed. */
  const collectedHeap = async () => (await Promise.all(relays.map((r) => heapAfterGc(inspectorUrlOf(r.output.join('')))))).reduce((a, b) => a + b, 0)

  const rasaAccounts = Array.from({ length: RASA_ACCOUNTS }, (_, i) => address(i))
  const enigmaAccounts = Array.from({ length: ENIGMA_ACCOUNTS }, (_, i) => address(100_000 + i))
  const keys = [...rasaAccounts.map((a) => accountKey(1, 'beta', a)), ...enigmaAccounts.map((a) => accountKey(1, 'alpha', a))]
  const nc = await connect({ servers: nats.url })
  const jsm = await jetstreamManager(nc)
  // The bench's own writes wait as long as they must: ten relays opening accounts load the one server,
  // and a key put late is not what this measures (the relays' own errors are counted below).
  const accountsKv = await new Kvm(jetstream(nc, { timeout: 60_000 })).create(ACCOUNTS_BUCKET, { history: 1 })
  const leasesKv = await new Kvm(jetstream(nc, { timeout: 60_000 })).open(LEASES_BUCKET)
  /**
   * Resolves once `owner` has written its heartbeat and then renewed `count` partition leases (its whole
   * round); false when that did not happen within 30 s.
   */
  const renewedAll = async (owner: string, count: number): Promise<boolean> => {
    const watch = await leasesKv.watch({ include: KvWatchInclude.UpdatesOnly })
    const timeout = setTimeout(() => watch.stop(), 30_000)
    let renewals: Set<string> | undefined
    try {
      for await (const e of watch) {
        if (e.key === `instances.${owner}`) renewals = new Set()
        else if (renewals && e.operation === 'PUT' && e.key.startsWith('partitions.') && e.json<{ owner?: string }>().owner === owner && renewals.add(e.key).size === count) return true
      }
      return false
    } finally {
      clearTimeout(timeout)
      watch.stop()
    }
  }
  /** The expiry written in each partition lease `owner` holds. */
  const victimLeaseExpiries = async (owner: string): Promise<number[]> => {
    const expiries: number[] = []
    const partitionKeys: string[] = []
    for await (const key of await leasesKv.keys('partitions.>')) partitionKeys.push(key)
    for (let i = 0; i < partitionKeys.length; i += 128) {
      await Promise.all(
        partitionKeys.slice(i, i + 128).map(async (key) => {
          const entry = await leasesKv.get(key)
          if (entry?.operation !== 'PUT') return
          const lease = entry.json<{ owner?: string; expires?: number }>()
          if (lease.owner === owner && typeof lease.expires === 'number') expiries.push(lease.expires)
        }),
      )
    }
    return expiries
  }
  let last = ''
  const put = async (from: number, to: number) => {
    for (let i = from; i < to; i += 1_000) await Promise.all(keys.slice(i, Math.min(to, i + 1_000)).map((k) => accountsKv.put(storedKey(k, DEFAULT_PARTITIONS), '{}')))
  }
  const allOwned = async (count: number, since: number) => {
    await until(async () => {
      const now = await Promise.all(everyone.map(async (i) => metric(await scrape(i), 'solver_relay_accounts_owned')))
      if (process.env.RELAY_SCALE_TRACE && now.join('/') !== last) console.log(`owned ${(last = now.join('/'))} after ${((performance.now() - since) / 1000).toFixed(1)} s`)
      return now.reduce((a, b) => a + b, 0) === count
    }, 'all accounts owned').catch((error: Error) => {
      for (const r of relays) console.error(`${r.id}: ${r.output.join('').split('\n').filter((l) => !l.includes('"accounts moved"')).slice(-8).join('\n')}`)
      throw error
    })
  }
  // Coordination at rest, from the buckets' own stream sequences (every KV write is one message):
  // once the checkpoints stopped moving, the writes of a 15 s window, per second.
  const kvStreams = [LEASES_BUCKET, CHECKPOINTS_BUCKET, ACCOUNTS_BUCKET].map((bucket) => `KV_${bucket}`)
  const kvSeq = async () => (await Promise.all(kvStreams.map(async (name) => (await jsm.streams.info(name)).state.last_seq))).reduce((a, b) => a + b, 0)
  const idleWrites = async () => {
    let before = await kvSeq()
    for (let quiet = 0, rounds = 0; quiet < 2 && rounds < 30; rounds++) {
      await new Promise((r) => setTimeout(r, 2_000))
      const checkpoints = (await jsm.streams.info(`KV_${CHECKPOINTS_BUCKET}`)).state.last_seq
      quiet = checkpoints === before ? quiet + 1 : 0
      before = checkpoints
    }
    const from = await kvSeq()
    const at = performance.now()
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS))
    return ((await kvSeq()) - from) / ((performance.now() - at) / 1000)
  }
  // A tenth of the accounts first (the idle figure at that size), then the rest.
  const tenth = Math.floor(keys.length / 10)
  const firstStarted = performance.now()
  await put(0, tenth)
  await allOwned(tenth, firstStarted)
  await Promise.all([rasa.waitForSubscribers(rasaAccounts.slice(0, tenth)), enigma.waitForSubscribers(enigmaAccounts.filter((_, i) => RASA_ACCOUNTS + i < tenth))])
  const idleAtTenth = await idleWrites()
  const collectedAtTenth = await collectedHeap()
  trace(`idle writes at ${tenth}: ${idleAtTenth.toFixed(1)}/s`)
  const started = performance.now()
  await put(tenth, keys.length)
  await allOwned(keys.length, started)
  trace('all owned')
  await Promise.all([rasa.waitForSubscribers(rasaAccounts), enigma.waitForSubscribers(enigmaAccounts)])
  trace('all subscribed')
  const allOwnedSeconds = (performance.now() - started) / 1000
  const idleAtAll = await idleWrites()
  trace(`idle writes at ${keys.length}: ${idleAtAll.toFixed(1)}/s`)
  const heapPerAccount = ((await heap(everyone)) - heapBefore) / keys.length
  // After forced collections, per account of the last nine tenths (the code they run and the relays' own
  // structures were there at the tenth already); its target is the mix's: ≤ 2 KiB per rasa account, ≤ 8 per enigma.
  const collectedPerAccount = ((await collectedHeap()) - collectedAtTenth) / (keys.length - tenth)
  const enigmaInRest = ENIGMA_ACCOUNTS - Math.max(0, tenth - RASA_ACCOUNTS)
  const rasaInRest = keys.length - tenth - enigmaInRest
  const collectedTarget = (rasaInRest * 2 + enigmaInRest * 8) / (rasaInRest + enigmaInRest)
  trace(`heap after GC: ${(collectedPerAccount / 1024).toFixed(2)} KiB per account`)
  const spread = await Promise.all(everyone.map(async (i) => metric(await scrape(i), 'solver_relay_accounts_owned')))

  // Published throughout: a round on every account, the kill, a second round while its accounts wait
  // for their leases to expire (then recovered from history by the new owners), a third after.
  const t0 = Math.floor(Date.now() / 1000)
  const round = async (r: number) => {
    // Each frame gets its own id (`r<round>-<n>`), so the count below knows every transition.
    const frame = (action: string, status: string) => ({ id: `r${r}`, modify_time: t0 + r, create_time: t0, last_seen_action: action, action_status: status, counterparty_address: rasaAccounts[0]! })
    await Promise.all([
      rasa.publish([frame(r === 1 ? 'InstantOpen' : 'FillOrder', r === 1 ? 'pending' : 'success')], { spread: { accounts: rasaAccounts }, repeat: RASA_ACCOUNTS }),
      enigma.publish([frame(r === 1 ? 'InstantOpen' : 'FillOrder', 'success')], { spread: { accounts: enigmaAccounts }, repeat: ENIGMA_ACCOUNTS }),
    ])
  }
  await round(1)
  trace('round 1 published')
  const victim = RELAYS - 1
  const victimOwned = spread[victim]!
  const survivorsOf = everyone.filter((i) => i !== victim)
  // Takeovers are counted from the kill on: the victim's partitions (each holds accounts at this scale).
  const takeoversBefore = await sum(survivorsOf, 'solver_relay_lease_takeovers_total')
  const victimPartitions = metric(await scrape(victim), 'solver_relay_partitions_owned')
  // The worst moment to die: just after renewing every lease, which then runs a full TTL after the kill.
  const renewed = await renewedAll(relays[victim]!.id, victimPartitions)
  relays[victim]!.child.kill('SIGKILL')
  const killedAt = performance.now()
  const killedWall = Date.now()
  // When the victim's leases run out (each says so itself): the re-own time is that, plus what the survivors take.
  const survivors = everyone.filter((i) => i !== victim)
  // Watched from the kill on, beside round 2's publishing: timed when the count is reached (it was timed
  // after round 2 was published, which on a slow machine took longer than the takeover: the simulator's time).
  let reownedAt: number | undefined
  const reowned = until(async () => {
    const now = await Promise.all(survivors.map(async (i) => metric(await scrape(i), 'solver_relay_accounts_owned')))
    if (process.env.RELAY_SCALE_TRACE && now.join('/') !== last) console.log(`owned ${(last = now.join('/'))} after the kill ${((performance.now() - killedAt) / 1000).toFixed(1)} s`)
    const done = now.reduce((a, b) => a + b, 0) === keys.length
    if (done) reownedAt ??= performance.now()
    return done
  }, "the killed relay's accounts to be re-owned", 240_000).catch((error: Error) => console.error(`RELAY scale: ${error.message} (MISS); the count below shows what that cost`))
  const [expiries] = await Promise.all([victimLeaseExpiries(relays[victim]!.id), round(2)])
  trace('round 2 published')
  await reowned
  const takeoverSeconds = ((reownedAt ?? performance.now()) - killedAt) / 1000
  const lastExpiry = (Math.max(...expiries) - killedWall) / 1000
  const firstExpiry = (Math.min(...expiries) - killedWall) / 1000
  const takeovers = (await sum(survivors, 'solver_relay_lease_takeovers_total')) - takeoversBefore
  trace('re-owned')
  if (process.env.RELAY_SCALE_TRACE) {
    // The reads' own lines (claim and read times) come when each read has ended, after the count is reached.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const killedIso = new Date(killedWall - 6_000).toISOString()
    // When the victim's heartbeat and its leases ran out, to the millisecond (survivors look when the heartbeat does).
    const beat = await leasesKv.get(`instances.${relays[victim]!.id}`).catch(() => undefined)
    const beatExpiry = beat?.operation === 'PUT' ? beat.json<{ expires?: number }>().expires : undefined
    const sorted = [...expiries].sort((a, b) => a - b)
    console.log(`victim: heartbeat ran out ${beatExpiry === undefined ? '?' : beatExpiry - killedWall} ms after the kill; leases ${sorted[0]! - killedWall}, ${sorted[Math.floor(sorted.length / 4)]! - killedWall}, ${sorted[Math.floor(sorted.length / 2)]! - killedWall}, ${sorted.at(-1)! - killedWall} ms (first, quartile, median, last)`)
    for (const i of survivors) for (const line of relays[i]!.output.join('').split('\n')) if (/"msg":"(partitions read|took over partitions|partitions moved|round|accounts moved)/.test(line) && line.slice(line.indexOf('"time":"') + 8) >= killedIso) console.log(`${relays[i]!.id}: ${line}`)
    // The survivors' warnings, by kind (a partition given back, a read that found nothing, ...).
    const warnings = new Map<string, number>()
    for (const i of survivors) {
      for (const line of relays[i]!.output.join('').split('\n')) {
        const msg = line.includes('"level":"warn"') ? /"msg":"([^"]*)"/.exec(line)?.[1] : undefined
        if (msg) warnings.set(msg.replace(/\d+/g, 'N').slice(0, 120), (warnings.get(msg.replace(/\d+/g, 'N').slice(0, 120)) ?? 0) + 1)
      }
    }
    for (const [msg, n] of warnings) console.log(`warn ×${n}: ${msg}`)
  }
  await round(3)
  trace('round 3 published')

  // The independent count, from the stream.
  const [enigmaPublished, rasaPublished] = await Promise.all([enigma.published(), rasa.published()])
  // Both simulators number their frames alike: an id is known by its solver (alpha enigma, beta rasa).
  const wantedIds = new Set([...enigmaPublished.ids.map((id) => `alpha:${id}`), ...rasaPublished.latest.map(([, id]) => `beta:${id}`)])
  const seen = new Map<string, number>()
  let missing = wantedIds.size
  let read = 0
  // Read until every wanted state is there, then on to the stream's last message, so a late duplicate
  // counts too; 30 s without a message ends it (a MISS then names what is missing).
  let lastSeq = Number.POSITIVE_INFINITY
  await new Promise<void>((resolve) => {
    let idle = setTimeout(resolve, 30_000)
    const subscription = consumeNotifications({ nats: { servers: nats.url }, deliver: 'all' }).subscribe({
      next: async ({ notification, seq }) => {
        clearTimeout(idle)
        idle = setTimeout(finish, 30_000)
        read++
        const id = `${notification.solverId}:${notification.id ?? ''}`
        const n = (seen.get(id) ?? 0) + 1
        seen.set(id, n)
        if (n === 1 && wantedIds.has(id) && --missing === 0) lastSeq = (await jsm.streams.info('SOLVER_NOTIFICATIONS')).state.last_seq
        if (seq >= lastSeq) finish()
      },
      error: () => finish(),
    })
    function finish() {
      clearTimeout(idle)
      subscription.unsubscribe()
      resolve()
    }
  })
  const enigmaTwice = enigmaPublished.ids.filter((id) => (seen.get(`alpha:${id}`) ?? 0) > 1).length
  const enigmaMissing = enigmaPublished.ids.filter((id) => !seen.has(`alpha:${id}`)).length
  const rasaMissing = rasaPublished.latest.filter(([, id]) => !seen.has(`beta:${id}`)).length
  const scraped = await Promise.all(survivors.map((i) => scrape(i)))
  const scrapedErrors = scraped.map((text) => metric(text, 'solver_relay_errors_total')).reduce((a, b) => a + b, 0)
  const byCode = new Map<string, number>()
  for (const text of scraped) for (const [, code, n] of text.matchAll(/^solver_relay_errors_total\{code="([^"]+)"\} (\d+)/gm)) byCode.set(code!, (byCode.get(code!) ?? 0) + Number(n))

  // Errors are findings: what each one was, from the relays' own log lines (when, and why).
  const reasons = new Map<string, number>()
  for (const [i, relay] of relays.entries()) {
    if (i === victim) continue
    for (const line of relay.output.join('').split('\n')) {
      const msg = /"msg":"(lost partition \d+ \(([^)]*)\)|partition \d+: checkpoints not written \(([^)]*)\))/.exec(line)
      if (!msg) continue
      const at = /"time":"[^"]*T(\d\d:\d\d:\d\d)/.exec(line)?.[1] ?? '?'
      const why = msg[2] !== undefined ? `lost: ${msg[2]}` : `checkpoint: ${msg[3]!.slice(0, 80)}`
      reasons.set(`${why} (first at ${at})`, (reasons.get(`${why} (first at ${at})`) ?? 0) + 1)
    }
  }
  const exactlyOnce = enigmaTwice === 0 && enigmaMissing === 0 && rasaMissing === 0
  const inTime = takeoverSeconds * 1000 <= LEASE_TTL_MS + REOWN_SLACK_MS
  console.log(
    `RELAY scale: ${RELAYS} processes share ${fmt(RASA_ACCOUNTS)} rasa + ${fmt(ENIGMA_ACCOUNTS)} enigma accounts (${spread.map(fmt).join(' / ')}): the last nine tenths owned and subscribed in ${allOwnedSeconds.toFixed(1)} s, heap ${(heapPerAccount / 1024).toFixed(1)} KiB per account (no forced GC)`,
  )
  console.log(
    `RELAY scale: heap per owned account after forced GC in every relay: ${(collectedPerAccount / 1024).toFixed(2)} KiB (the last nine tenths, ${fmt(rasaInRest)} rasa + ${fmt(enigmaInRest)} enigma; target for that mix ${collectedTarget.toFixed(2)} KiB, from ≤ 2 KiB per rasa and ≤ 8 KiB per enigma account) ${collectedPerAccount <= collectedTarget * 1024 ? 'PASS' : 'MISS'}`,
  )
  const idleOk = Math.max(idleAtTenth, idleAtAll) <= 500 && Math.max(idleAtTenth, idleAtAll) <= Math.min(idleAtTenth, idleAtAll) * 1.05
  console.log(
    `RELAY scale: idle KV writes ${idleAtTenth.toFixed(1)}/s at ${fmt(tenth)} accounts, ${idleAtAll.toFixed(1)}/s at ${fmt(keys.length)} (the buckets' stream sequences over ${IDLE_WINDOW_MS / 1000} s; target ≤ 500 and within 5%) ${idleOk ? 'PASS' : 'MISS'}`,
  )
  console.log(
    `RELAY scale: SIGKILL of one relay (${fmt(victimOwned)} accounts): re-owned ${takeoverSeconds.toFixed(1)} s after the kill (target ≤ leaseTtlMs ${LEASE_TTL_MS / 1000} s + ${REOWN_SLACK_MS / 1000} s) ${inTime ? 'PASS' : 'MISS'}, ${(takeoverSeconds - lastExpiry).toFixed(1)} s after its last lease ran out (its ${fmt(expiries.length)} leases ran out ${firstExpiry.toFixed(1)}–${lastExpiry.toFixed(1)} s after the kill${renewed ? ', which came just after it renewed them all' : ''}); /metrics shows ${fmt(takeovers)} partitions taken over (the victim held ${fmt(victimPartitions)}: ${takeovers === victimPartitions ? 'equal' : 'NOT equal'}), ${fmt(scrapedErrors)} errors${byCode.size > 0 ? ` (${[...byCode].map(([c, n]) => `${c} ${fmt(n)}`).join(', ')})` : ''}`,
  )
  console.log(
    `RELAY scale: independent consumer read ${fmt(read)} messages: enigma transitions ${fmt(enigmaPublished.ids.length)} (missing ${enigmaMissing}, twice ${enigmaTwice}), rasa quotes' latest states ${fmt(rasaPublished.latest.length)} (missing ${rasaMissing}) ${exactlyOnce ? 'PASS' : 'MISS'}`,
  )
  if (reasons.size > 0) {
    const byWhy = new Map<string, { n: number; times: string[] }>()
    for (const [key, n] of reasons) {
      const [, why, at] = /^(.*) \(first at (.*)\)$/.exec(key)!
      const entry = byWhy.get(why!) ?? { n: 0, times: [] }
      entry.n += n
      entry.times.push(at!)
      byWhy.set(why!, entry)
    }
    const killedClock = new Date(Date.now() - (performance.now() - killedAt)).toISOString().slice(11, 19)
    for (const [why, { n, times }] of byWhy) console.log(`RELAY scale: ${fmt(n)} × ${why} — from ${times.sort()[0]} to ${times.sort().at(-1)} (kill at ${killedClock})`)
  }
  // A NATS restart: every survivor's accounts watch resumes after the last revision it saw. Counted
  // from its own /metrics, up to the moment a key added after the restart is owned (which proves the
  // watches run again); a watch restarted from zero would deliver the whole bucket first.
  const entriesOf = () => Promise.all(survivors.map(async (i) => metric(await scrape(i), 'solver_relay_bucket_entries_total')))
  const ownedOf = () => Promise.all(survivors.map(async (i) => { const text = await scrape(i); return metric(text, 'solver_relay_accounts_owned') + metric(text, 'solver_relay_partitions_owned') }))
  const entriesBefore = await entriesOf()
  const ownedBefore = await ownedOf()
  await nats.restart()
  await until(async () => (await Promise.all(survivors.map(async (i) => (await fetch(`http://${httpOf(relays[i]!)}/readyz`)).status))).every((s) => s === 200), 'every survivor ready after the NATS restart', 120_000)
  const probe = accountKey(1, 'beta', address(900_000))
  // This bench's own connection reconnects too; JetStream answers again a moment after the restart.
  await until(() => accountsKv.put(storedKey(probe, DEFAULT_PARTITIONS), '{}').then(() => true, () => false), 'the key to be added after the restart', 120_000)
  await until(async () => (await Promise.all(survivors.map(async (i) => metric(await scrape(i), 'solver_relay_bucket_entries_total')))).every((n, k) => n > entriesBefore[k]!), 'the key added after the restart to reach every survivor', 120_000)
  const delivered = (await entriesOf()).map((n, k) => n - entriesBefore[k]!)
  const bound = ownedBefore
  const resumeOk = delivered.every((n, k) => n <= bound[k]!)
  console.log(
    `RELAY scale: after a NATS restart, accounts-bucket entries delivered to each survivor: ${delivered.map(fmt).join(' / ')} (target ≤ its owned accounts + partitions: ${bound.map(fmt).join(' / ')}; the bucket holds ${fmt(keys.length + 1)}) ${resumeOk ? 'PASS' : 'MISS'}`,
  )
  for (const relay of relays) if (relay.child.exitCode === null && relay.child.signalCode === null) relay.child.kill('SIGTERM')
  await Promise.all(relays.map((r) => r.exited))
  await nc.close()
  await Promise.all([enigma.close(), rasa.close()])
  if (!exactlyOnce) process.exitCode = 1
}

/** The `host:port` a relay serves /metrics on, from its start log line. */
function httpOf(relay: ReturnType<typeof spawnRelay>): string {
  const match = /"http":"([^"]+)"/.exec(relay.output.join(''))
  if (!match) throw new Error(`${relay.id} did not log its http address: ${relay.output.join('').slice(0, 500)}`)
  return match[1]!
}
