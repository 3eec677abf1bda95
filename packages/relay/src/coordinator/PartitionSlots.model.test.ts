import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { assignPartitions } from '../partitions.js'
import { PartitionSlots, type SlotEffect, type SlotEvent } from './PartitionSlots.js'

/*
 * Several relays' slots against one model of the leases bucket and the checkpoint records, driven by
 * every source of events a relay has: liveness rounds (fence, renewals, plan, takes), loads, the results
 * of every request in any order (and failing), checkpoint writes, the clock, joins, kills and drains,
 * a relay cut off from NATS (its requests never land, its rounds hang on the heartbeat) and healed, and
 * renewals slower than the fence margin (a round waits for every renewal it sent). Requests land at the
 * server when they are delivered (at most LATENCY after they were sent), so any interleaving the network
 * allows is one fast-check can pick. The relay's fence is its own timer (the coordinator's timed fence):
 * RELAY_MODEL_FENCE=rounds leaves only the round's fence, as before, and the model then finds a relay cut
 * off from NATS still watching its accounts after another took them.
 */
const P = 5
const TTL = 3_000
const MARGIN = 600
const INTERVAL = 1_000
/** a request lands within this of being sent (below the fence margin, as a request timeout is) */
const LATENCY = 400
/** the relay's fence: its own timer at each lease's confirmed expiry (today), or only inside a round (before) */
const TIMED_FENCE = process.env.RELAY_MODEL_FENCE !== 'rounds'

type OpKind = 'take' | 'renew' | 'claim' | 'read' | 'stop' | 'giveBack' | 'write'
interface Op {
  relay: Relay
  kind: OpKind
  partition: number
  epoch: number
  revision: number
  sentAt: number
  /** the claim batch it belongs to */
  batch?: ClaimBatch
}
interface ClaimBatch {
  items: Array<{ partition: number; epoch: number }>
  open: number
}
interface Relay {
  id: string
  slots: PartitionSlots
  alive: boolean
  left: boolean
  lastBeat: number
  /** cut off from NATS: its requests never land (it hears each fail), its rounds hang on the heartbeat */
  cut: boolean
  /** how this relay last let go of each partition */
  exit: Map<number, 'gaveBack' | 'lost'>
}

type Command =
  | { kind: 'round'; relay: number; full: boolean }
  | { kind: 'load'; relay: number }
  /** `slowToo`: may pick a request of the run's slow kind (otherwise those wait until the clock forces them) */
  | { kind: 'deliver'; index: number; fail: boolean; slowToo: boolean }
  | { kind: 'write'; relay: number; partition: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'join' }
  | { kind: 'kill'; relay: number }
  | { kind: 'drain'; relay: number }
  | { kind: 'cut'; relay: number }
  | { kind: 'heal'; relay: number }

class World {
  now = 1_000_000
  relays: Relay[] = []
  ops: Op[] = []
  revision = 0
  leases = new Map<number, { owner: string; revision: number; expires: number }>()
  /** who claimed each partition's checkpoint record, and under which take */
  claims = new Map<number, { owner: string; epoch: number }>()
  violations: string[] = []

  join(): void {
    const id = `r${this.relays.length}`
    this.relays.push({ id, slots: new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN }), alive: true, left: false, lastBeat: this.now, cut: false, exit: new Map() })
  }

  ownerOf(p: number): string | undefined {
    const lease = this.leases.get(p)
    return lease && lease.expires > this.now ? lease.owner : undefined
  }

  dispatch(relay: Relay, event: SlotEvent): void {
    if (!relay.alive) return
    for (const effect of relay.slots.apply(event)) this.run(relay, effect)
  }

  run(relay: Relay, effect: SlotEffect): void {
    const op = (kind: OpKind, partition: number, epoch: number, revision = 0, batch?: ClaimBatch): void => {
      this.ops.push({ relay, kind, partition, epoch, revision, sentAt: this.now, batch })
    }
    switch (effect.type) {
      case 'take':
        op('take', effect.partition, effect.epoch)
        return
      case 'renew':
        op('renew', effect.partition, effect.epoch, effect.revision)
        return
      case 'claim': {
        const batch: ClaimBatch = { items: effect.batch, open: effect.batch.length }
        for (const item of effect.batch) op('claim', item.partition, item.epoch, 0, batch)
        return
      }
      case 'read':
        for (const item of effect.batch) op('read', item.partition, item.epoch)
        return
      case 'stop': {
        // Its checkpoints are written only when its record was claimed and its lease is not fenced (the
        // record's flush checks `fenced` as it starts; `revision` 1 marks a write here).
        const slot = relay.slots.get(effect.partition)
        op('stop', effect.partition, effect.epoch, slot?.claim === 'claimed' && slot.confirmedUntil > this.now ? 1 : 0)
        return
      }
      case 'giveBack':
        relay.exit.set(effect.partition, 'gaveBack')
        op('giveBack', effect.partition, -1, effect.revision)
        return
      case 'returnTake':
        op('giveBack', effect.partition, -1, effect.revision)
        return
      case 'lost':
        relay.exit.set(effect.partition, 'lost')
        return
      default:
        return // detach, adopt, discard, reconcile: the relay's accounts, not the leases
    }
  }

  round(relay: Relay, full: boolean): void {
    if (!relay.alive || relay.left) return
    // Cut off: the round waits for a heartbeat that never answers. Renewals still in flight: the round
    // waits for them too (the next round starts only after the last one ended).
    if (relay.cut || this.ops.some((op) => op.relay === relay && op.kind === 'renew')) return
    if (full) relay.lastBeat = this.now
    this.dispatch(relay, { type: 'fence', now: this.now })
    if (full) for (const [p] of [...relay.slots.entries()]) this.dispatch(relay, { type: 'renew', partition: p })
    const members = this.relays.filter((r) => !r.left && this.now - r.lastBeat < TTL).map((r) => ({ id: r.id }))
    const plan = relay.slots.draining ? undefined : assignPartitions(P, members, (p) => this.ownerOf(p))
    const mine = new Set<number>()
    for (let p = 0; p < P; p++) if (plan?.owners[p] === relay.id) mine.add(p)
    this.dispatch(relay, { type: 'plan', mine })
    for (const p of mine) if (this.ownerOf(p) === undefined || this.ownerOf(p) === relay.id) this.dispatch(relay, { type: 'take', partition: p })
  }

  /** The request lands at the server now; its answer reaches the relay now. */
  deliver(op: Op, fail: boolean): void {
    this.ops.splice(this.ops.indexOf(op), 1)
    // A relay cut off from NATS: its request never reached the server; it hears a timeout.
    if (op.relay.cut) fail = true
    const { relay, partition: p, epoch } = op
    const lease = this.leases.get(p)
    const live = lease && lease.expires > this.now ? lease : undefined
    switch (op.kind) {
      case 'take': {
        let revision: number | undefined
        if (!fail && (!live || live.owner === relay.id)) {
          revision = ++this.revision
          this.leases.set(p, { owner: relay.id, revision, expires: this.now + TTL })
        }
        this.dispatch(relay, { type: 'taken', partition: p, epoch, sentAt: op.sentAt, revision })
        return
      }
      case 'renew': {
        let result: number | 'lost' | 'unknown' = 'unknown'
        if (!fail) {
          if (lease && lease.owner === relay.id && lease.revision === op.revision) {
            result = ++this.revision
            this.leases.set(p, { owner: relay.id, revision: result, expires: this.now + TTL })
          } else result = 'lost'
        }
        this.dispatch(relay, { type: 'renewed', partition: p, epoch, sentAt: op.sentAt, result })
        return
      }
      case 'claim': {
        if (!fail) {
          if (live?.owner !== relay.id) this.violations.push(`${relay.id} claimed partition ${p}'s checkpoints at ${this.now} while ${live?.owner ?? 'nobody'} held its lease`)
          this.claims.set(p, { owner: relay.id, epoch })
        }
        this.dispatch(relay, { type: 'claimed', partition: p, epoch, ok: !fail })
        const batch = op.batch
        if (batch && --batch.open === 0) this.dispatch(relay, { type: 'claimsDone', batch: batch.items })
        return
      }
      case 'read':
        this.dispatch(relay, { type: 'read', partition: p, epoch, ok: !fail })
        return
      case 'write':
      case 'stop':
        // A checkpoint write lands: the record refuses a writer whose claim another replaced (that relay then loses the partition).
        if (!fail && (op.kind === 'write' || op.revision === 1)) {
          const claim = this.claims.get(p)
          if (claim?.owner === relay.id && claim.epoch === epoch) {
            if (live?.owner !== relay.id) this.violations.push(`${relay.id} wrote partition ${p}'s checkpoints at ${this.now} while ${live?.owner ?? 'nobody'} held its lease`)
          } else if (relay.slots.get(p)?.epoch === epoch) this.dispatch(relay, { type: 'lose', partition: p, why: 'another relay claimed its checkpoints' })
        }
        if (op.kind === 'stop') this.dispatch(relay, { type: 'stopped', partition: p, epoch })
        return
      case 'giveBack':
        if (lease && lease.owner === relay.id && lease.revision === op.revision) this.leases.delete(p)
        return
    }
  }

  /** A checkpoint write, as an open account's publish acknowledged makes one: only under a confirmed, claimed lease (the record's fence). */
  write(relay: Relay, p: number): void {
    const slot = relay.slots.get(p)
    if (!relay.alive || !slot || slot.claim !== 'claimed' || slot.confirmedUntil <= this.now) return
    if (slot.phase === 'releasing' && slot.waiting !== 'stop') return
    this.ops.push({ relay, kind: 'write', partition: p, epoch: slot.epoch, revision: 0, sentAt: this.now })
  }

  advance(ms: number): void {
    const until = this.now + ms
    // Every request sent more than LATENCY before the new time has landed by then, in the order sent;
    // each relay's fence timer fires at its next confirmed expiry, in time order with them.
    for (;;) {
      const due = this.ops.filter((op) => op.sentAt + LATENCY <= until).sort((a, b) => a.sentAt - b.sentAt)[0]
      let fence: { relay: Relay; at: number } | undefined
      if (TIMED_FENCE) {
        for (const r of this.relays) {
          const at = r.alive ? r.slots.nextFence() : undefined
          if (at !== undefined && at <= until && (fence === undefined || at < fence.at)) fence = { relay: r, at }
        }
      }
      if (fence && (!due || fence.at <= due.sentAt)) {
        this.now = Math.max(this.now, fence.at)
        this.dispatch(fence.relay, { type: 'fence', now: this.now })
        continue
      }
      if (!due) break
      this.now = Math.max(this.now, due.sentAt)
      this.deliver(due, false)
    }
    this.now = until
  }

  leaveDrained(): void {
    for (const r of this.relays) if (r.alive && r.slots.draining && r.slots.size === 0 && !this.ops.some((op) => op.relay === r)) r.left = true
  }

  check(): void {
    for (let p = 0; p < P; p++) {
      // What a relay really does: its partition's accounts are watched (and published) from the claim
      // until the slot is released, fenced or lost, whatever its lease says meanwhile.
      const publishing = this.relays.filter((r) => {
        const slot = r.slots.get(p)
        return r.alive && slot && slot.claim === 'claimed' && (slot.phase === 'reading' || slot.phase === 'held')
      })
      if (publishing.length > 1) this.violations.push(`partition ${p} owned by ${publishing.map((r) => r.id).join(' and ')} at once at ${this.now}`)
      for (const r of publishing) if (this.ownerOf(p) !== r.id) this.violations.push(`${r.id} publishes partition ${p} at ${this.now} while ${this.ownerOf(p) ?? 'nobody'} holds its lease`)
      // A handover never leaves its lease to expire: given back, it is nobody's (once the relay's requests on it landed).
      const owner = this.relays.find((r) => r.id === this.ownerOf(p))
      if (owner?.alive && !owner.slots.get(p) && owner.exit.get(p) === 'gaveBack' && !this.ops.some((op) => op.relay === owner && op.partition === p)) {
        this.violations.push(`${owner.id} handed partition ${p} over at ${this.now} but its lease stays until it expires`)
      }
    }
  }

  /** Every live relay that is not draining plans, takes, loads and hears every answer for a lease TTL and two rounds. */
  settle(): void {
    // NATS is back for everyone.
    for (const r of this.relays) r.cut = false
    const end = this.now + TTL + 2 * INTERVAL
    while (this.now < end) {
      for (const r of this.relays) this.round(r, true)
      for (let i = 0; i < 3; i++) {
        while (this.ops.length > 0) this.deliver(this.ops[0]!, false)
        for (const r of this.relays) this.dispatch(r, { type: 'load', now: this.now })
      }
      this.leaveDrained()
      this.check()
      this.advance(INTERVAL)
    }
  }
}

const relayIndex = fc.nat(3)
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('round' as const), relay: relayIndex, full: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('load' as const), relay: relayIndex }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('deliver' as const), index: fc.nat(40), fail: fc.nat(5).map((n) => n === 0), slowToo: fc.nat(7).map((n) => n === 0) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('write' as const), relay: relayIndex, partition: fc.nat(P - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 50, max: 1_500 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'join' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), relay: relayIndex }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drain' as const), relay: relayIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), relay: relayIndex }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('heal' as const), relay: relayIndex }) },
)

const slowKind = fc.constantFrom<OpKind | 'none'>('none', 'take', 'renew', 'claim', 'read', 'stop', 'giveBack', 'write')

/** Runs the commands, then settles; returns what broke. Requests of the `slow` kind land late (claims, reads, renewals…). */
function play(commands: Command[], slow: OpKind | 'none' = 'none'): string[] {
  const world = new World()
  world.join()
  for (const c of commands) {
    const relay = 'relay' in c ? world.relays[c.relay % world.relays.length]! : undefined
    switch (c.kind) {
      case 'round':
        world.round(relay!, c.full)
        break
      case 'load':
        world.dispatch(relay!, { type: 'load', now: world.now })
        break
      case 'deliver':
        {
          const ready = c.slowToo ? world.ops : world.ops.filter((op) => op.kind !== slow)
          if (ready.length > 0) world.deliver(ready[c.index % ready.length]!, c.fail)
        }
        break
      case 'write':
        world.write(relay!, c.partition)
        break
      case 'advance':
        world.advance(c.ms)
        break
      case 'join':
        if (world.relays.length < 5) world.join()
        break
      case 'kill':
        // A dead relay's requests in flight still land; it never hears their answers.
        relay!.alive = false
        break
      case 'drain':
        world.dispatch(relay!, { type: 'drain' })
        break
      case 'cut':
        relay!.cut = true
        break
      case 'heal':
        relay!.cut = false
        break
    }
    world.leaveDrained()
    world.check()
    if (world.violations.length > 0) return world.violations
  }
  world.settle()
  // Once a live relay has room, every partition is owned within a lease TTL and a round.
  const live = world.relays.filter((r) => r.alive && !r.left && !r.slots.draining)
  if (live.length > 0) {
    for (let p = 0; p < P; p++) {
      const holders = live.filter((r) => r.slots.get(p)?.phase === 'held')
      if (holders.length !== 1) world.violations.push(`after settling, partition ${p} is held by ${holders.length} relays`)
    }
  }
  return world.violations
}

describe('PartitionSlots across relays (model)', () => {
  it('no partition owned by two relays, no claim or checkpoint write without the lease, no handover left to expire, all owned after settling', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 150 }), slowKind, (commands, slow) => {
        expect(play(commands, slow)).toEqual([])
      }),
      {
        numRuns: Number(process.env.RELAY_MODEL_RUNS ?? 10_000),
        seed: process.env.RELAY_MODEL_SEED ? Number(process.env.RELAY_MODEL_SEED) : undefined,
        // CI's seed 1648903199 found the model writing a handover's checkpoints under a lease that had run
        // out with no round to fence it; the relay's record does not write when fenced, and now neither does
        // the model. Kept as a fixed first case.
        examples: process.env.RELAY_MODEL_EXAMPLES === 'off' ? [] : [
          [
            [
              { kind: 'round', relay: 0, full: false },
              { kind: 'advance', ms: 805 },
              { kind: 'load', relay: 0 },
              { kind: 'advance', ms: 1363 },
              { kind: 'advance', ms: 832 },
              { kind: 'drain', relay: 0 },
              { kind: 'deliver', index: 0, fail: true, slowToo: true },
            ],
            'none',
          ],
        ],
      },
    )
  })
})
