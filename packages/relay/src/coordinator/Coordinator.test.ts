import { createConfig, createNotificationsClient } from '@solver-notifications/core'
import { type MemorySimulator, startMemorySimulator } from '@solver-notifications/testkit'
import type { KV, KvEntry } from '@nats-io/kv'
import { afterEach, expect, it } from 'vitest'
import { accountKey } from '../accountKeys.js'
import { type AccountContext, StreamPositions } from '../AccountRelay.js'
import { storedKey } from '../deployment.js'
import type { JetStreamPublisher } from '../JetStreamPublisher.js'
import { LeaseTable } from '../LeaseTable.js'
import { Membership } from '../Membership.js'
import type { BucketEntry } from '../readBucket.js'
import { silentLogger } from '../relayLogger.js'
import { RelayMetrics } from '../RelayMetrics.js'
import type { RelayClock } from '../RelayClock.js'
import { Coordinator } from './Coordinator.js'
import { LivenessRounds } from './LivenessRounds.js'

// The coordinator on in-memory stores: its leases, heartbeats and checkpoint records in a KV that
// keeps revisions as NATS does (create fails on a live key, update and delete by revision), its
// accounts read from a list, its streams from the in-memory simulator, its publishes acknowledged
// by a stand-in. Nothing here is about NATS: it is about who writes the relay's accounts, and when.

interface Stored {
  value: string
  revision: number
  operation: 'PUT' | 'DEL'
  created: Date
}

/** The part of a NATS KV bucket the leases, heartbeats and checkpoint records use, in memory; `watch` hears every write, as a bucket's watch does. */
function memoryKv(watch?: (entry: KvEntry) => void): KV {
  const entries = new Map<string, Stored>()
  let sequence = 0
  const entryOf = (key: string, e: Stored) => ({
    bucket: 'memory',
    key,
    value: new TextEncoder().encode(e.value),
    revision: e.revision,
    operation: e.operation,
    created: e.created,
    delta: 0,
    length: e.value.length,
    string: () => e.value,
    json: <T>() => JSON.parse(e.value) as T,
  })
  const write = (key: string, value: string, operation: 'PUT' | 'DEL' = 'PUT') => {
    const e: Stored = { value, revision: ++sequence, operation, created: new Date() }
    entries.set(key, e)
    watch?.(entryOf(key, e) as unknown as KvEntry)
    return e.revision
  }
  const expect = (key: string, revision: number | undefined) => {
    const last = entries.get(key)?.revision ?? 0
    if (revision !== undefined && last !== revision) throw new Error(`wrong last sequence: ${last}`)
  }
  const kv = {
    async get(key: string) {
      const e = entries.get(key)
      return e ? entryOf(key, e) : null
    },
    async create(key: string, value: string) {
      if (entries.get(key)?.operation === 'PUT') throw new Error('wrong last sequence: key exists')
      return write(key, value)
    },
    async update(key: string, value: string, revision: number) {
      expect(key, revision)
      return write(key, value)
    },
    async put(key: string, value: string) {
      return write(key, value)
    },
    async delete(key: string, options?: { previousSeq?: number }) {
      expect(key, options?.previousSeq)
      write(key, '', 'DEL')
    },
    async keys() {
      const live = [...entries].filter(([, e]) => e.operation === 'PUT').map(([key]) => key)
      return (async function* () {
        yield* live
      })()
    },
  }
  return kv as unknown as KV
}

const P = 4
/** more accounts than the opener opens (or hands over) at once, so some of them wait for a turn */
const N = 150
const accounts = Array.from({ length: N }, (_, i) => accountKey(1, 'alpha', `0x${(i + 1).toString(16).padStart(40, '0')}`))

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A clock the test moves: its timers fire when it is advanced past them, in order. */
function manualClock(): RelayClock & { advance(ms: number): void } {
  let now = Date.now()
  const timers = new Set<{ at: number; fn: () => void }>()
  return {
    now: () => now,
    set(fn, ms) {
      const timer = { at: now + Math.max(0, ms), fn }
      timers.add(timer)
      return timer
    },
    clear(timer) {
      timers.delete(timer as { at: number; fn: () => void })
    },
    advance(ms) {
      const to = now + ms
      // A timer that arms itself again at once would spin here for ever: that is a failure, said as one.
      let fired = 0
      for (let due = [...timers].filter((t) => t.at <= to).sort((a, b) => a.at - b.at); due.length > 0; due = [...timers].filter((t) => t.at <= to).sort((a, b) => a.at - b.at)) {
        const timer = due[0]!
        if (++fired > 10_000) throw new Error(`timers keep firing at ${timer.at - Date.now()} ms: one re-arms itself for a time already past`)
        timers.delete(timer)
        now = Math.max(now, timer.at)
        timer.fn()
      }
      now = to
    },
  }
}

async function start(sim: MemorySimulator, { clock, keys = accounts }: { clock?: RelayClock; keys?: string[] } = {}) {
  const config = createConfig({
    defaultChainId: 1,
    chains: { 1: { defaultSolver: 'alpha', solvers: { alpha: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } },
  })
  const client = createNotificationsClient({ config, lingerMs: 0, ...sim.clientOptions })
  cleanups.push(() => client.close())
  const published: string[] = []
  const publisher = {
    publish: (_subject: string, body: string, _msgId: string, done: (error: undefined, duplicate: boolean) => void) => {
      published.push((JSON.parse(body) as { id: string }).id)
      queueMicrotask(() => done(undefined, false))
    },
    inFlight: 0,
  } as unknown as JetStreamPublisher
  let coordinator: Coordinator | undefined
  const metrics = new RelayMetrics({
    owned: () => coordinator?.ownedCount() ?? 0,
    partitions: () => coordinator?.slots.size ?? 0,
    partitionCount: () => P,
    accounts: () => N,
    pending: () => 0,
    natsConnected: () => true,
    client: () => client.stats(),
  })
  const accountContext: AccountContext = {
    positions: new StreamPositions(),
    client,
    publisher,
    subjectPrefix: 'solver.notifications',
    metrics,
    logger: silentLogger,
    protocolOf: () => 'enigma',
    streamLost: () => Promise.resolve(false),
    tracer: () => undefined,
  }
  // The leases bucket's watch, as startRelay follows it: every entry goes to the coordinator.
  const leasesKv = memoryKv((entry) => void coordinator?.dispatch({ type: 'leaseEntry', entry }))
  const leases = new LeaseTable(leasesKv, 'relay-a', 60_000)
  const membership = new Membership(leasesKv, 'relay-a', Number.MAX_SAFE_INTEGER, 60_000)
  const bucket: BucketEntry[] = keys.map((key) => {
    const value = JSON.stringify({ since: Math.floor(Date.now() / 1000) - 60 })
    return { key: storedKey(key, P), operation: 'PUT', created: new Date(), length: value.length, json: <T>() => JSON.parse(value) as T }
  })
  coordinator = new Coordinator({
    id: 'relay-a',
    partitions: P,
    leaseTtlMs: 60_000,
    fenceMarginMs: 10_000,
    leases,
    membership,
    checkpoints: memoryKv(),
    readAccounts: async (pattern, onEntry) => {
      const prefix = pattern === '>' ? '' : pattern.slice(0, -1)
      for (const e of bucket) if (e.key.startsWith(prefix)) onEntry(e)
    },
    accountContext,
    metrics,
    logger: silentLogger,
    totalAccounts: () => N,
    livenessSoon: () => {},
    clock,
  })
  const c = coordinator
  cleanups.push(() => c.close())
  // Every write of which accounts are open, and whether the coordinator was applying an event then.
  const writes: Array<{ op: 'set' | 'delete'; key: string; applying: boolean }> = []
  const open = c.opener.open
  const set = open.set.bind(open)
  const remove = open.delete.bind(open)
  open.set = (key, relay) => {
    writes.push({ op: 'set', key, applying: c.applying })
    return set(key, relay)
  }
  open.delete = (key) => {
    writes.push({ op: 'delete', key, applying: c.applying })
    return remove(key)
  }
  return { coordinator: c, writes, published, metrics, leases, leasesKv, membership }
}

/** A liveness round as the relay's rounds run one: plan every partition here, take them, read them. */
// (A round's renewals are left out: without them, the leases run out on the coordinator's own fence.)
async function takeAll(c: Coordinator): Promise<void> {
  const all = new Set(Array.from({ length: P }, (_, p) => p))
  await c.dispatch({ type: 'plan', mine: all })
  await Promise.all([...all].map((partition) => c.dispatch({ type: 'take', partition })))
  await c.dispatch({ type: 'load', now: Date.now() })
}

/** Stops rounds whose round under way waits on the test's clock: it moves until that round has ended. */
async function stopOnClock(rounds: LivenessRounds, clock: { advance(ms: number): void }): Promise<void> {
  let stopped = false
  const stopping = rounds.stop().then(() => {
    stopped = true
  })
  while (!stopped) {
    clock.advance(60_000)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  await stopping
}

async function until(what: string, done: () => boolean, clock?: { advance(ms: number): void }): Promise<void> {
  // A deadline, not a pace: the loop ends as soon as `done` holds.
  const deadline = Date.now() + 20_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not reached in 20 s: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
    // The coordinator's own short waits (accounts gathered into a batch) are on its clock.
    clock?.advance(25)
  }
}

it('every account opened and let go is written by the coordinator while it applies an event, never after an await of its own', async () => {
  const sim = await startMemorySimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const { coordinator: c, writes } = await start(sim)
  await takeAll(c)
  await until(`${N} accounts open`, () => c.opener.open.size === N)
  await c.opener.running
  // Two partitions planned elsewhere: their accounts are handed over (more of them than are stopped at once).
  const handed = accounts.filter((key) => c.table.wanted.get(key)!.partition < 2)
  await c.dispatch({ type: 'plan', mine: new Set([2, 3]) })
  await until('the two partitions handed over', () => c.slots.size === 2)
  await c.opener.running
  expect(c.opener.open.size).toBe(N - handed.length)
  // The rest lost to another relay: stopped at once.
  await c.dispatch({ type: 'lose', partition: 2, why: 'relay-b took its lease' })
  await c.dispatch({ type: 'lose', partition: 3, why: 'relay-b took its lease' })
  await until('every account let go', () => c.opener.open.size === 0)
  await c.opener.running
  expect(c.ownedCount()).toBe(0)
  // Each account opened once and let go once, all of it inside the coordinator's dispatch.
  expect(writes.filter((w) => w.op === 'set').map((w) => w.key).sort()).toEqual([...accounts].sort())
  expect(writes.filter((w) => w.op === 'delete').map((w) => w.key).sort()).toEqual([...accounts].sort())
  expect(writes.filter((w) => !w.applying)).toEqual([])
})

it('an account whose partition goes while its first backfill runs is let go when the backfill ends, by the coordinator', async () => {
  const sim = await startMemorySimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const { coordinator: c, writes } = await start(sim)
  // History answers late: the accounts' first backfills are under way while the partition goes.
  const hold = sim.holdHttpAnswers()
  await takeAll(c)
  await until('a batch opening', () => c.opener.open.size > 0)
  await hold.held(1)
  await c.dispatch({ type: 'lose', partition: 0, why: 'relay-b took its lease' })
  hold.release()
  await until('the lost partition let go', () => !c.slots.holds(0))
  await c.opener.running
  const kept = accounts.filter((key) => c.table.wanted.get(key) !== undefined)
  expect([...c.opener.open.keys()].sort()).toEqual(kept.sort())
  expect(kept.length).toBeLessThan(N)
  expect(writes.filter((w) => !w.applying)).toEqual([])
})

it('on a clock of its own: a lease not renewed is fenced by the coordinator\'s timer at its expiry less the margin; the accounts keep what comes and publish it, in order, once the partitions are taken back over its own entries', async () => {
  const sim = await startMemorySimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const clock = manualClock()
  const few = accounts.slice(0, 8)
  const { coordinator: c, published, metrics } = await start(sim, { clock, keys: few })
  await takeAll(c)
  await until('8 accounts open', () => c.opener.open.size === few.length, clock)
  for (const key of few) await sim.waitForSubscribers(c.table.wanted.get(key)!.account)
  const account = c.table.wanted.get(few[0]!)!.account
  const before = (await sim.instantOpen(account)).frames.map((f) => String(f.id))
  await until('the first lifecycle published', () => before.every((id) => published.includes(id)), clock)
  // No renewal (no rounds run here): 60 s of TTL less the 10 s margin later, the coordinator's own timer fences every partition.
  clock.advance(50_000)
  await until('every partition fenced', () => c.slots.size === 0 && c.opener.open.size === 0)
  const count = published.length
  const during = (await sim.instantOpen(account)).frames.map((f) => String(f.id))
  await until('what came while fenced kept', () => metrics.kept === during.length)
  expect(published).toHaveLength(count)
  // Taken back over its own entries (nobody wrote them since): the kept accounts resume and publish what they kept.
  await takeAll(c)
  await until('the kept lifecycle published', () => during.every((id) => published.includes(id)), clock)
  expect(published.slice(count)).toEqual(during)
  expect(published.filter((id) => before.includes(id) || during.includes(id))).toEqual([...before, ...during])
  expect(metrics.kept).toBe(0)
  expect(c.opener.open.size).toBe(few.length)
})

it('on a clock of its own: a bucket check and a heartbeat that take longer than a lease (a cluster electing leaders, one timeout after another) never hold back the renewals of the leases held', async () => {
  const sim = await startMemorySimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const clock = manualClock()
  const { coordinator: c, leases, leasesKv, membership } = await start(sim, { clock, keys: accounts.slice(0, 8) })
  await takeAll(c)
  await until('every partition held', () => Array.from({ length: P }, (_, p) => p).every((p) => c.slots.holds(p)), clock)
  // Renewals counted where they are written: updates of a partition's lease.
  let renewals = 0
  const update = leasesKv.update.bind(leasesKv)
  leasesKv.update = (key, value, revision) => {
    if (!key.startsWith('instances.')) renewals++
    return update(key, value, revision)
  }
  // The bucket check and the heartbeat answer 55 s after they were asked (TTL 60 s, fenced at 50 s).
  const late = () => new Promise<void>((resolve) => clock.set(resolve, 55_000))
  membership.beat = late
  const rounds = new LivenessRounds({ id: 'relay-a', partitions: P, leaseTtlMs: 60_000, membership, leases, accountsKv: leasesKv, coordinator: c, logger: silentLogger, checkBuckets: late })
  cleanups.push(() => stopOnClock(rounds, clock))
  rounds.start()
  // Six rounds, 20 s apart: each renews every lease, and no partition is fenced in between.
  for (let round = 1; round <= 6; round++) {
    const deadline = Date.now() + 20_000
    while (renewals < round * P) {
      expect(c.slots.size, `partitions held at ${round === 1 ? 'the first round' : `round ${round}`}`).toBe(P)
      if (Date.now() > deadline) throw new Error(`round ${round} renewed ${renewals - (round - 1) * P} of ${P} leases`)
      await new Promise((resolve) => setTimeout(resolve, 2))
      clock.advance(250)
    }
  }
  expect(c.slots.size).toBe(P)
  expect(Array.from({ length: P }, (_, p) => p).every((p) => c.slots.holds(p))).toBe(true)
})

it('on a clock of its own: a renewal that gets no answer (a cluster node back but not serving JetStream yet) is sent again within a second, not at the next round, and the partitions are never fenced', async () => {
  const sim = await startMemorySimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const clock = manualClock()
  const { coordinator: c, leasesKv } = await start(sim, { clock, keys: accounts.slice(0, 8) })
  await takeAll(c)
  const all = Array.from({ length: P }, (_, p) => p)
  await until('every partition held', () => all.every((p) => c.slots.holds(p)), clock)
  // The next three updates of each lease are refused the way a node whose JetStream is not up yet refuses them.
  const refusals = new Map<string, number>()
  let renewed = 0
  const update = leasesKv.update.bind(leasesKv)
  leasesKv.update = async (key, value, revision) => {
    const n = refusals.get(key) ?? 0
    if (n < 3) {
      refusals.set(key, n + 1)
      throw new Error('jetstream is not enabled')
    }
    renewed++
    return update(key, value, revision)
  }
  // One round's renewals, 40 s into a 60 s lease (fenced at 50 s): every one of them refused.
  const t0 = clock.now()
  clock.advance(40_000)
  await Promise.all(all.map((partition) => c.dispatch({ type: 'renew', partition })))
  // No other round runs: the coordinator sends them again itself, until they land.
  const deadline = Date.now() + 20_000
  while (renewed < P) {
    expect(c.slots.size, `partitions held ${clock.now() - t0} ms into the lease`).toBe(P)
    if (Date.now() > deadline) throw new Error(`${renewed} of ${P} renewals landed`)
    await new Promise((resolve) => setTimeout(resolve, 2))
    clock.advance(100)
  }
  // Three refusals and the renewal that landed, each partition; past the old lease's fence, every partition still held.
  expect([...refusals.values()]).toEqual(all.map(() => 3))
  await until('the renewals applied', () => all.every((p) => c.slots.get(p)?.renewing === false))
  for (const p of all) expect(c.slots.get(p)!.confirmedUntil - t0).toBeGreaterThan(90_000)
  clock.advance(15_000)
  expect(all.every((p) => c.slots.holds(p))).toBe(true)
})

it('on a clock of its own: a count of the accounts that never ends (a key listing cut off by NATS restarting empty: nats.js never ends it) does not stop the rounds: the bucket check runs again at every full round', async () => {
  const sim = await startMemorySimulator({ protocol: 'enigma' })
  cleanups.push(() => sim.close())
  const clock = manualClock()
  const { coordinator: c, leases, membership } = await start(sim, { clock, keys: accounts.slice(0, 8) })
  // The accounts bucket's revision moves every round (so it is listed again), and its listing delivers nothing, ever.
  let revision = 0
  let listings = 0
  let stopped = 0
  const accountsKv = {
    status: async () => ({ streamInfo: { state: { last_seq: ++revision } } }),
    keys: async () => {
      listings++
      return {
        stop: () => void stopped++,
        [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => {}) }),
      }
    },
  } as unknown as KV
  let checks = 0
  const rounds = new LivenessRounds({ id: 'relay-a', partitions: P, leaseTtlMs: 60_000, membership, leases, accountsKv, coordinator: c, logger: silentLogger, checkBuckets: async () => void checks++ })
  cleanups.push(() => stopOnClock(rounds, clock))
  const t0 = clock.now()
  rounds.start()
  // Full rounds 20 s apart: three of them within a minute, each with its check and its listing.
  const deadline = Date.now() + 20_000
  while (checks < 3) {
    if (Date.now() > deadline) throw new Error(`${checks} bucket checks in ${clock.now() - t0} ms of the relay's time: the rounds stopped behind a listing`)
    await new Promise((resolve) => setTimeout(resolve, 2))
    clock.advance(250)
  }
  expect(listings).toBeGreaterThanOrEqual(2)
  // Every listing given up was stopped (its consumer released), not left running.
  await until('the listings given up stopped', () => stopped >= listings - 1, clock)
})
