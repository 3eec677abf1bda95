import { performance } from 'node:perf_hooks'
import { DEFAULT_PARTITIONS, assignPartitions, partitionOf } from '../src/partitions.js'

/**
 * CONTROL PLANE: the partitioned ownership design simulated with a fake clock and an in-memory KV
 * (no sockets, no NATS): 100 relays, P partitions, 10,000 to 1,000,000 accounts. Each relay writes one
 * heartbeat per round and renews each partition it owns (compare-and-set by revision), computes the
 * plan from what it sees, gives back what the plan moves away and takes what it gives it. Measured:
 * the time of one assignment round (real time, the plan of 100 members), the KV writes per second
 * while nothing changes (from the KV's own sequence, per account count: they must not grow with
 * accounts), partitions moved when a relay leaves (must be exactly the leaver's) and how long a
 * killed relay's partitions stay unowned (must be within the lease TTL plus a round).
 */

const ROUND_MS = 5_000
const TTL_MS = 15_000

interface Entry {
  value: { owner: string; expires: number }
  revision: number
}

/** A KV bucket as the simulation needs it: create / update by revision / delete, with a sequence counting writes. */
class FakeKv {
  readonly entries = new Map<string, Entry>()
  sequence = 0
  put(key: string, value: Entry['value'], expected?: number): number | undefined {
    const current = this.entries.get(key)
    if (expected !== undefined && current?.revision !== expected) return undefined
    if (expected === undefined && current !== undefined && current.value.owner !== value.owner && current.value.expires > value.expires - TTL_MS) return undefined
    this.sequence++
    this.entries.set(key, { value, revision: this.sequence })
    return this.sequence
  }
  delete(key: string): void {
    if (this.entries.delete(key)) this.sequence++
  }
}

class SimRelay {
  readonly held = new Map<number, number>()
  alive = true
  constructor(
    readonly id: string,
    private readonly kv: FakeKv,
    private readonly partitions: number,
  ) {}

  round(now: number, rounds: number[]): void {
    if (!this.alive) return
    this.kv.put(`instances.${this.id}`, { owner: this.id, expires: now + TTL_MS })
    for (const [p, revision] of this.held) {
      const next = this.kv.put(`partitions.${p}`, { owner: this.id, expires: now + TTL_MS }, revision)
      if (next === undefined) this.held.delete(p)
      else this.held.set(p, next)
    }
    const members = [...this.kv.entries].flatMap(([key, e]) => (key.startsWith('instances.') && e.value.expires > now ? [{ id: e.value.owner }] : []))
    const ownerOf = (p: number) => {
      const e = this.kv.entries.get(`partitions.${p}`)
      return e && e.value.expires > now ? e.value.owner : undefined
    }
    const started = performance.now()
    const plan = assignPartitions(this.partitions, members, ownerOf)
    rounds.push(performance.now() - started)
    for (const [p, revision] of this.held) {
      if (plan.owners[p] === this.id) continue
      const e = this.kv.entries.get(`partitions.${p}`)
      if (e?.revision === revision) this.kv.delete(`partitions.${p}`)
      this.held.delete(p)
    }
    for (let p = 0; p < this.partitions; p++) {
      if (plan.owners[p] !== this.id || this.held.has(p)) continue
      const e = this.kv.entries.get(`partitions.${p}`)
      if (e && e.value.owner !== this.id && e.value.expires > now) continue
      const revision = e ? this.kv.put(`partitions.${p}`, { owner: this.id, expires: now + TTL_MS }, e.revision) : this.kv.put(`partitions.${p}`, { owner: this.id, expires: now + TTL_MS })
      if (revision !== undefined) this.held.set(p, revision)
    }
  }

  leave(): void {
    this.alive = false
    this.kv.delete(`instances.${this.id}`)
    for (const p of this.held.keys()) this.kv.delete(`partitions.${p}`)
    this.held.clear()
  }
}

/** Runs `seconds` of simulated time; relays tick every round, staggered so they do not act in lockstep. */
function run(relays: SimRelay[], clock: { now: number }, seconds: number, rounds: number[]): void {
  const end = clock.now + seconds * 1000
  const step = ROUND_MS / relays.length
  while (clock.now < end) {
    for (const r of relays) {
      clock.now += step
      r.round(clock.now, rounds)
    }
  }
}

const ownersOf = (relays: SimRelay[], partitions: number) => {
  const owners = new Array<string | undefined>(partitions).fill(undefined)
  for (const r of relays) for (const p of r.held.keys()) owners[p] = r.id
  return owners
}

export function controlPlaneBench(options: { relays?: number; partitions?: number; accounts?: number[] } = {}): boolean {
  const relayCount = options.relays ?? 100
  const partitions = options.partitions ?? DEFAULT_PARTITIONS
  const accountCounts = options.accounts ?? [10_000, 100_000, 1_000_000]
  let ok = true
  const line = (text: string, pass: boolean) => {
    ok &&= pass
    console.log(`CONTROL ${text} ${pass ? 'PASS' : 'MISS'}`)
  }
  const writesPerSecond: number[] = []
  let roundTimes: number[] = []
  let leaveMoved = 0
  let leaverHeld = 0
  let unownedAfterKill = 0
  for (const accounts of accountCounts) {
    // Accounts are placed once, when added (a hash each); rounds never look at them.
    const perPartition = new Uint32Array(partitions)
    const placeStarted = performance.now()
    for (let i = 0; i < accounts; i++) perPartition[partitionOf(`42161.beta.0x${i.toString(16).padStart(40, '0')}`, partitions)]!++
    const placeMs = performance.now() - placeStarted
    const kv = new FakeKv()
    const clock = { now: 1_763_700_000_000 }
    const relays = Array.from({ length: relayCount }, (_, i) => new SimRelay(`relay-${i}`, kv, partitions))
    const rounds: number[] = []
    run(relays, clock, 60, rounds) // settle
    const seq = kv.sequence
    run(relays, clock, 60, rounds)
    writesPerSecond.push((kv.sequence - seq) / 60)
    roundTimes = rounds
    const owned = ownersOf(relays, partitions)
    const accountsOwned = owned.reduce((sum, o, p) => sum + (o ? perPartition[p]! : 0), 0)
    console.log(
      `CONTROL ${accounts.toLocaleString('en-US')} accounts: placed in ${placeMs.toFixed(0)} ms (once, when added), owned ${accountsOwned.toLocaleString('en-US')}, idle KV writes ${writesPerSecond.at(-1)!.toFixed(1)}/s`,
    )
    if (accounts === accountCounts.at(-1)) {
      const before = ownersOf(relays, partitions)
      const leaver = relays[7]!
      leaverHeld = leaver.held.size
      leaver.leave()
      const rest = relays.filter((r) => r !== leaver)
      run(rest, clock, 30, [])
      const after = ownersOf(rest, partitions)
      leaveMoved = after.filter((o, p) => o !== before[p]).length
      const victim = rest[3]!
      victim.alive = false
      run(rest, clock, (TTL_MS + ROUND_MS) / 1000, [])
      unownedAfterKill = ownersOf(rest, partitions).filter((o, p) => o === undefined || o === victim.id || kv.entries.get(`partitions.${p}`)!.value.owner === victim.id).length
    }
  }
  const sorted = [...roundTimes].sort((a, b) => a - b)
  const p99 = sorted[Math.floor(sorted.length * 0.99)]!
  line(`assignment round with ${relayCount} relays, ${partitions} partitions: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (≤ 10 ms)`, p99 <= 10)
  const [low, high] = [Math.min(...writesPerSecond), Math.max(...writesPerSecond)]
  line(`idle KV writes/s ${writesPerSecond.map((w) => w.toFixed(1)).join(' / ')} for ${accountCounts.map((a) => a.toLocaleString('en-US')).join(' / ')} accounts (≤ 500 and within 5%)`, high <= 500 && high <= low * 1.05)
  line(`a leave moved ${leaveMoved} partitions; the leaver held ${leaverHeld} (equal)`, leaveMoved === leaverHeld)
  line(`a killed relay's partitions unowned after the lease TTL + a round: ${unownedAfterKill} (0)`, unownedAfterKill === 0)
  return ok
}

