import type { KV, KvEntry } from '@nats-io/kv'

interface Lease {
  owner: string
  expires: number
  revision: number
}

/**
 * The leases of every account (`leases.<key>` in the leases bucket): who holds each, until when, at
 * which revision. Taking, renewing and giving back go by revision, so two relays never both hold one.
 */
export class LeaseTable {
  private readonly leases = new Map<string, Lease>()

  constructor(
    private readonly kv: KV,
    private readonly owner: string,
    private readonly ttlMs: number,
  ) {}

  /** A lease entry changed (`leases.<key>`, the prefix removed). */
  onEntry(key: string, e: KvEntry): void {
    if (e.operation !== 'PUT') {
      this.leases.delete(key)
      return
    }
    try {
      const v = e.json<{ owner?: string; expires?: number }>()
      this.leases.set(key, { owner: String(v.owner), expires: v.expires ?? 0, revision: e.revision })
    } catch {
      this.leases.delete(key)
    }
  }

  /**
   * Takes the lease of `key` unless another relay holds it unexpired; returns the revision it holds it
   * at and the previous owner (a takeover), or undefined when it did not get it (someone was first).
   */
  async take(key: string): Promise<{ revision: number; from: string | undefined } | undefined> {
    const current = this.leases.get(key)
    if (current && current.owner !== this.owner && current.expires > Date.now()) return undefined
    try {
      const revision = current ? await this.kv.update(`leases.${key}`, this.value(), current.revision) : await this.kv.create(`leases.${key}`, this.value())
      return { revision, from: current && current.owner !== this.owner ? current.owner : undefined }
    } catch {
      return undefined // someone else got it first, or our view was stale: the next tick looks again
    }
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
      return await this.kv.update(`leases.${key}`, this.value(), revision)
    } catch (error) {
      if (!/wrong last sequence|key exists/i.test((error as Error)?.message ?? '')) return 'unknown'
      // The revision moved. A renewal of ours that timed out but was stored moves it too, and this
      // relay's watch may not have seen it yet: the entry itself says whose the lease is.
      try {
        const entry = await this.kv.get(`leases.${key}`)
        if (entry?.operation !== 'PUT') return 'lost'
        return entry.json<{ owner?: string }>().owner === this.owner ? entry.revision : 'lost'
      } catch {
        return 'unknown'
      }
    }
  }

  /** Gives a lease back, only if it is still this relay's. */
  async giveBack(key: string, revision: number): Promise<void> {
    await this.kv.delete(`leases.${key}`, { previousSeq: revision }).catch(() => {})
  }

  private value(): string {
    return JSON.stringify({ owner: this.owner, expires: Date.now() + this.ttlMs })
  }
}
