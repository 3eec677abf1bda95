import type { KV, KvEntry } from '@nats-io/kv'

interface Lease {
  owner: string
  expires: number
  revision: number
}

/** How far a lease's expiry may lie beyond its TTL (clocks of two relays disagree this much at most). */
export const MAX_CLOCK_SKEW_MS = 30_000

/**
 * The TTL a lease is judged by when its owner does not announce one (relays before the announcement,
 * e.g. 72bbfc5): no relay runs with more, so only an expiry beyond it (plus the skew) is garbage.
 */
export const MAX_UNANNOUNCED_TTL_MS = 10 * 60_000

/**
 * The longest lease TTL: a relay refuses to run with more (`--lease-ttl-ms`), and a TTL a lease announces
 * above it is judged by it. Any client with write access to the bucket could otherwise announce `1e12`
 * and hold its partition for as long as it says.
 */
export const MAX_LEASE_TTL_MS = 10 * 60_000

/**
 * A lease as stored: `{ owner, expires, ttlMs }` (`ttlMs`: the TTL its owner runs with, so a reader with
 * another TTL judges it by its owner's, not its own). Pinned by the golden test in LeaseTable.test.ts:
 * old and new relays read each other's leases during a rolling upgrade.
 *
 * @example
 * leaseValue('relay-a', 1_763_700_000_000, 15_000) // '{"owner":"relay-a","expires":1763700000000,"ttlMs":15000}'
 */
export function leaseValue(owner: string, expires: number, ttlMs: number): string {
  return JSON.stringify({ owner, expires, ttlMs })
}

/** Why a lease entry is not a lease: it is then treated as expired, so the next take overwrites it by revision. */
export type GarbageLease = 'not JSON' | 'wrong shape' | 'from the future'

/**
 * Leases of one kind in the leases bucket (`<prefix>.<key>`: `partitions.<n>`): who holds each, until
 * when, at which revision. Taking, renewing and giving back go by revision, so two relays never both
 * hold one.
 */
export class LeaseTable {
  private readonly leases = new Map<string, Lease>()

  constructor(
    private readonly kv: KV,
    private readonly owner: string,
    private readonly ttlMs: number,
    private readonly prefix = 'partitions',
    /** an entry that is not a lease (written by hand, or by a broken tool), once per revision */
    private readonly onGarbage: (key: string, why: GarbageLease, revision: number) => void = () => {},
    /** NATS denies this relay's user the writes of a lease (its permissions): the relay withdraws */
    private readonly onDenied: (message: string) => void = () => {},
  ) {}

  /** A lease entry changed (`<prefix>.<key>`, the prefix removed). */
  onEntry(key: string, e: KvEntry): void {
    if (e.operation !== 'PUT') {
      this.leases.delete(key)
      return
    }
    let v: unknown
    try {
      v = e.json()
    } catch {
      this.garbage(key, 'not JSON', e.revision)
      return
    }
    const lease = v as { owner?: unknown; expires?: unknown; ttlMs?: unknown } | null
    if (typeof lease !== 'object' || lease === null || typeof lease.owner !== 'string' || lease.owner === '' || typeof lease.expires !== 'number' || !Number.isFinite(lease.expires)) {
      this.garbage(key, 'wrong shape', e.revision)
      return
    }
    // No relay writes an expiry further out than its TTL: one far beyond it would hold the partition for
    // ever. Judged by the TTL its owner announces (a deployment changing its TTL runs both side by side),
    // else by the longest any relay runs with.
    const announced = typeof lease.ttlMs === 'number' && Number.isFinite(lease.ttlMs) && lease.ttlMs > 0 ? Math.min(lease.ttlMs, MAX_LEASE_TTL_MS) : MAX_UNANNOUNCED_TTL_MS
    if (lease.expires > Date.now() + Math.max(this.ttlMs, announced) + MAX_CLOCK_SKEW_MS) {
      this.garbage(key, 'from the future', e.revision)
      return
    }
    this.leases.set(key, { owner: lease.owner, expires: lease.expires, revision: e.revision })
  }

  /**
   * Takes the lease of `key` unless another relay holds it unexpired; returns the revision it holds it
   * at, the previous owner (a takeover) and the revision it replaced (by revision: nobody wrote in
   * between), or undefined when it did not get it (someone was first).
   */
  async take(key: string): Promise<{ revision: number; from: string | undefined; after: number | undefined } | undefined> {
    const current = this.leases.get(key)
    if (current && current.owner !== this.owner && current.expires > Date.now()) return undefined
    try {
      const revision = current ? await this.kv.update(`${this.prefix}.${key}`, this.value(), current.revision) : await this.kv.create(`${this.prefix}.${key}`, this.value())
      return { revision, from: current && current.owner !== this.owner ? current.owner : undefined, after: current?.revision }
    } catch (error) {
      this.denied(error)
      // Someone else got it first, or our view was stale (a renewal of ours landed unseen, the watch down
      // after a reconnect): the entry is read again, so the next round's take sees what is there now
      // instead of failing on the same old revision for as long as the watch is away.
      if (/wrong last sequence|key exists/i.test((error as Error)?.message ?? '')) {
        const now = await this.kv.get(`${this.prefix}.${key}`).catch(() => undefined)
        if (now) this.onEntry(key, now)
        else this.leases.delete(key)
      }
      return undefined
    }
  }

  /** A write NATS refused for the user's permissions is told (the relay withdraws); any other failure is the caller's. */
  private denied(error: unknown): void {
    const message = (error as Error)?.message ?? String(error)
    if (/permission/i.test(message)) this.onDenied(message)
  }

  /** The bucket was reset: every lease and revision seen is forgotten (its watch reads it again from the start). */
  clear(): void {
    this.leases.clear()
  }

  /** The lease of `key` as last seen, expired or not (owner `''` for garbage). */
  entryOf(key: string): { owner: string; revision: number } | undefined {
    return this.leases.get(key)
  }

  /** Who holds `key` unexpired (this relay included); undefined when nobody does. */
  ownerOf(key: string, now = Date.now()): string | undefined {
    const lease = this.leases.get(key)
    return lease && lease.expires > now ? lease.owner : undefined
  }

  /** When another relay's lease of `key` runs out; undefined when nobody else holds it. */
  expiryOf(key: string): number | undefined {
    const lease = this.leases.get(key)
    return lease && lease.owner !== this.owner ? lease.expires : undefined
  }

  /**
   * Renews a held lease: its new revision; `'lost'` when another relay owns it now (we were away longer
   * than the lease); `'unknown'` when NATS did not answer in time (the renewal may have been stored:
   * the revision this relay's watch saw last is taken, and the next round tries again).
   */
  async renew(key: string, revision: number): Promise<number | 'lost' | 'unknown'> {
    try {
      return await this.kv.update(`${this.prefix}.${key}`, this.value(), revision)
    } catch (error) {
      this.denied(error)
      if (!/wrong last sequence|key exists/i.test((error as Error)?.message ?? '')) return 'unknown'
      // The revision moved. A renewal of ours that timed out but was stored moves it too, and this
      // relay's watch may not have seen it yet: the entry itself says whose the lease is. Ours, it is
      // renewed again at its revision: the one found carries the older renewal's expiry, and the relay
      // counts its fence from this renewal (keeping that revision, it would believe it holds the
      // partition after another relay may take it).
      try {
        const entry = await this.kv.get(`${this.prefix}.${key}`)
        if (entry?.operation !== 'PUT' || entry.json<{ owner?: string }>().owner !== this.owner) return 'lost'
        return await this.kv.update(`${this.prefix}.${key}`, this.value(), entry.revision)
      } catch {
        return 'unknown'
      }
    }
  }

  /**
   * Gives a lease back, only if it is still this relay's: by the revision held, or, when that moved
   * (a renewal of ours landed meanwhile), by the revision of the entry if it still names this relay.
   */
  async giveBack(key: string, revision: number): Promise<void> {
    try {
      await this.kv.delete(`${this.prefix}.${key}`, { previousSeq: revision })
      return
    } catch {
      // fall through: look at the entry itself
    }
    try {
      const entry = await this.kv.get(`${this.prefix}.${key}`)
      if (entry?.operation === 'PUT' && entry.json<{ owner?: string }>().owner === this.owner) await this.kv.delete(`${this.prefix}.${key}`, { previousSeq: entry.revision })
    } catch {
      // NATS away or someone else's now: the lease runs out by itself
    }
  }

  /**
   * Kept as an expired lease of nobody at its revision (dropping it would make every take try to create
   * a key that exists, and the partition would stay unowned for ever): the next take overwrites it.
   */
  private garbage(key: string, why: GarbageLease, revision: number): void {
    const seen = this.leases.get(key)
    this.leases.set(key, { owner: '', expires: 0, revision })
    // A watch may deliver one revision again: it is reported once.
    if (seen?.owner !== '' || seen.revision !== revision) this.onGarbage(key, why, revision)
  }

  private value(): string {
    return leaseValue(this.owner, Date.now() + this.ttlMs, this.ttlMs)
  }
}
