import type { KV, KvEntry } from '@nats-io/kv'
import { LAYOUT } from './deployment.js'
import { MAX_CLOCK_SKEW_MS, MAX_LEASE_TTL_MS } from './LeaseTable.js'
import { RelayError } from './RelayError.js'

export { LAYOUT } from './deployment.js'

/**
 * A heartbeat as stored (`instances.<id>`): `{ maxAccounts, expires, layout, partitions, ttlMs }` —
 * `partitions` and `ttlMs` say what the relay runs with (repair-config and readers with another TTL use
 * them). Pinned by the golden test in Membership.test.ts: old and new relays read each other's.
 *
 * @example
 * heartbeatValue({ maxAccounts: 5_000, expires: 1_763_700_000_000, partitions: 1_024, ttlMs: 15_000 }) // '{"maxAccounts":5000,"expires":1763700000000,"layout":3,"partitions":1024,"ttlMs":15000}'
 */
export function heartbeatValue(beat: { maxAccounts: number; expires: number; partitions: number | undefined; ttlMs: number }): string {
  return JSON.stringify({ maxAccounts: beat.maxAccounts, expires: beat.expires, layout: LAYOUT, partitions: beat.partitions, ttlMs: beat.ttlMs })
}

/** One live relay as the assignment sees it. */
export interface Member {
  id: string
  /** accounts it may hold at most */
  maxAccounts: number
}

/**
 * The relays that are alive, from the heartbeats every relay writes as `instances.<id>` into the
 * leases bucket (its capacity and an expiry). Every relay computes the same assignment from it.
 */
export class Membership {
  private readonly members = new Map<string, { maxAccounts: number; expires: number; layout: number }>()
  /** the deployment's partition count, announced in the heartbeat once known */
  partitions: number | undefined

  constructor(
    private readonly kv: KV,
    readonly id: string,
    private maxAccounts: number,
    private readonly ttlMs: number,
  ) {}

  /**
   * Takes no more accounts: its heartbeats announce a capacity of 0, so every relay's plan gives its
   * partitions to the others (a relay NATS denies an operation it needs). For the rest of its run.
   */
  withdraw(): void {
    this.maxAccounts = 0
  }

  /** A heartbeat entry changed (`instances.<id>`, the prefix removed). */
  onEntry(member: string, e: KvEntry): void {
    if (e.operation !== 'PUT') {
      this.members.delete(member)
      return
    }
    try {
      const v = e.json<{ expires?: number; maxAccounts?: number; layout?: number }>()
      // A heartbeat lasting beyond the longest TTL (plus clock skew) is no relay's: a member that never
      // expires would be planned partitions it never takes. Judged expired, like a garbage lease.
      const expires = Number(v.expires ?? 0)
      this.members.set(member, { maxAccounts: v.maxAccounts ?? Number.MAX_SAFE_INTEGER, expires: expires > Date.now() + MAX_LEASE_TTL_MS + MAX_CLOCK_SKEW_MS ? 0 : expires, layout: v.layout ?? 1 })
    } catch {
      this.members.delete(member)
    }
  }

  /** The bucket was reset: the heartbeats seen are forgotten (its watch reads it again from the start). */
  clear(): void {
    this.members.clear()
  }

  /** Writes this relay's heartbeat. */
  async beat(): Promise<void> {
    await this.kv.put(`instances.${this.id}`, heartbeatValue({ maxAccounts: this.maxAccounts, expires: Date.now() + this.ttlMs, partitions: this.partitions, ttlMs: this.ttlMs }))
  }

  /** The live members of this layout, this relay first (a relay of another layout is refused at start, see {@link refuseOtherLayouts}). */
  live(now = Date.now()): Member[] {
    const live: Member[] = [{ id: this.id, maxAccounts: this.maxAccounts }]
    for (const [member, m] of this.members) if (member !== this.id && m.expires > now && m.layout === LAYOUT) live.push({ id: member, maxAccounts: m.maxAccounts })
    return live
  }

  /**
   * Refuses to start next to a live relay of another layout: the two would each think they own the
   * same accounts. Read straight from the bucket, before this relay writes anything.
   */
  async refuseOtherLayouts(now = Date.now()): Promise<void> {
    const old: string[] = []
    for await (const key of await this.kv.keys('instances.>')) {
      const entry = await this.kv.get(key)
      if (entry?.operation !== 'PUT') continue
      try {
        const v = entry.json<{ expires?: number; layout?: number }>()
        if ((v.layout ?? 1) !== LAYOUT && Number(v.expires) > now) old.push(key.slice('instances.'.length))
      } catch {
        // not a heartbeat this relay can read: ignored
      }
    }
    if (old.length > 0) {
      throw new RelayError(
        'LAYOUT',
        `Relays of another layout are running (${old.join(', ')}): this one would own the same accounts twice. Drain them first (SIGTERM), run "solver-relay migrate --nats URL" once, then start this one; checkpoints are read as they are.`,
      )
    }
  }

  /** When the next other member's heartbeat runs out (it stopped beating, or beats again before): undefined when none is due. */
  nextExpiry(now = Date.now()): number | undefined {
    let next: number | undefined
    for (const [member, m] of this.members) if (member !== this.id && m.expires > now && (next === undefined || m.expires < next)) next = m.expires
    return next
  }

  /** Leaves: the others stop counting this relay at once (not after its heartbeat expires). */
  async leave(): Promise<void> {
    await this.kv.delete(`instances.${this.id}`).catch(() => {})
  }

  /**
   * Refuses to start next to a running relay of the same instance id: two of them would take each
   * other's leases in turn for ever. A fresh heartbeat may also be a crashed predecessor's, so the
   * entry is watched for one heartbeat interval and a half: only a live relay renews it.
   */
  async refuseTwin(heartbeatMs: number): Promise<void> {
    const first = await this.kv.get(`instances.${this.id}`)
    if (first?.operation !== 'PUT') return
    let expires = 0
    try {
      expires = Number(first.json<{ expires?: number }>().expires ?? 0)
    } catch {
      return
    }
    if (!(expires > Date.now())) return
    const deadline = Date.now() + heartbeatMs * 1.5
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, heartbeatMs / 4)))
      const now = await this.kv.get(`instances.${this.id}`)
      if (now && now.operation === 'PUT' && now.revision !== first.revision) {
        throw new RelayError(
          'INSTANCE_CONFLICT',
          `Another relay is running with instance id ${JSON.stringify(this.id)} (its heartbeat is fresh): two would take each other's leases in turn. Give each relay its own --instance-id (or leave it out for a random one).`,
        )
      }
    }
  }
}
