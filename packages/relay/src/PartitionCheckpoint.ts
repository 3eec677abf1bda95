import type { KV } from '@nats-io/kv'
import { isPlausiblePosition } from '@solver-notifications/core/internal'

/**
 * What an account's checkpoint holds: where to resume, and the ids already relayed at that exact second.
 *
 * @example
 * const position: Checkpoint = { since: 1_763_800_000, ids: ['enigma-41'] }
 */
export interface Checkpoint {
  since: number
  ids: string[]
}

/** An account whose position a partition's record keeps: asked for it when the record is written. */
export interface Positioned {
  readonly watched: { readonly key: string }
  checkpoint(): Checkpoint
}

/** What a partition's record tells its relay. */
export interface RecordHooks {
  /** true while the relay may not write (its lease not confirmed in time): a write now could overwrite the next owner's */
  fenced(): boolean
  /** another claim (another relay's, or an older one of this relay's) superseded this record: the partition it was claimed for must be let go */
  stale(record: PartitionCheckpoint): void
  wrote(): void
  failed(message: string): void
  warn(fields: Record<string, unknown>, message: string): void
}

/** The checkpoints bucket's key of a partition's record. */
export function recordKey(partition: number): string {
  return `p${partition}`
}

/** A partition's record is written at most this often while its accounts' positions move. */
const WRITE_EVERY_MS = 1_000
/** How often claiming a record may meet another relay's write before the partition is given up for this round. */
const CLAIM_ATTEMPTS = 5
const CONFLICT = /wrong last sequence|key exists/i

/** FNV-1a of a record's text: the last one written is remembered as this number, not the text. */
function hashText(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** The JSON text of a checkpoint, `ids` sorted so the same position is the same text. */
function checkpointText(c: Checkpoint): string {
  return JSON.stringify({ since: c.since, ids: c.ids.length > 1 ? [...c.ids].sort() : c.ids })
}

/**
 * The checkpoints of one partition's accounts, as one KV record (`p<n>` in the checkpoints bucket:
 * `{ owner, claim, accounts: { <key>: { since, ids } } }`), written by compare-and-set on the revision
 * its owner holds, at most once a second and only when something changed. Taking a partition claims
 * its record (a write naming the new owner), so a stale owner's next write fails and it lets the
 * partition go: two relays never both move a partition's positions.
 *
 * @example
 * const record = await PartitionCheckpoint.claim(checkpointsKv, 17, 'relay-a', hooks)
 * record.moved(accountRelay) // written within a second
 */
export class PartitionCheckpoint {
  /** every account's checkpoint as its JSON text (an account removed from the bucket leaves: re-added, it starts from its new entry) */
  private readonly positions: Map<string, string>
  private dirty: Set<Positioned> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private writing: Promise<void> | undefined
  private written: number | undefined
  private dropped = false

  private constructor(
    private readonly kv: KV,
    readonly partition: number,
    private readonly owner: string,
    private readonly claimId: string,
    private revision: number,
    positions: Map<string, string>,
    private readonly hooks: RecordHooks,
  ) {
    this.positions = positions
  }

  /**
   * Reads a partition's record and writes it back naming this relay (by revision): from then on a
   * previous owner's write fails. Retries when another write lands in between, but only while
   * `stillMine()` (a claim must never overwrite the claim of a relay the partition moved to); throws
   * when it keeps happening, or when the partition is no longer this relay's.
   */
  static async claim(kv: KV, partition: number, owner: string, hooks: RecordHooks, stillMine: () => boolean = () => true): Promise<PartitionCheckpoint> {
    const key = recordKey(partition)
    const claimId = `${owner}:${Math.random().toString(36).slice(2, 10)}`
    let last: unknown
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if (!stillMine()) throw new Error(`partition ${partition} is no longer this relay's`)
      const entry = await kv.get(key)
      const positions = entry?.operation === 'PUT' ? PartitionCheckpoint.read(entry.string(), partition, hooks) : new Map<string, string>()
      const record = new PartitionCheckpoint(kv, partition, owner, claimId, 0, positions, hooks)
      const text = record.text()
      try {
        record.revision = entry ? await kv.update(key, text, entry.revision) : await kv.create(key, text)
        record.written = hashText(text)
        return record
      } catch (error) {
        last = error
        if (!CONFLICT.test((error as Error)?.message ?? '')) throw error
      }
    }
    throw new Error(`the checkpoints of partition ${partition} kept changing while being claimed (${(last as Error)?.message ?? String(last)})`)
  }

  /** A record's accounts, each checked: an implausible position is dropped (its account resumes from its bucket entry) and said. */
  private static read(text: string, partition: number, hooks: RecordHooks): Map<string, string> {
    const positions = new Map<string, string>()
    let accounts: Record<string, unknown> = {}
    try {
      accounts = (JSON.parse(text) as { accounts?: Record<string, unknown> })?.accounts ?? {}
    } catch {
      hooks.warn({ partition }, `the checkpoints of partition ${partition} are not JSON; its accounts resume from their bucket entries`)
    }
    for (const [key, value] of Object.entries(accounts)) {
      const text = checkpointTextOf(value)
      if (text !== undefined) positions.set(key, text)
      else hooks.warn({ account: key, since: (value as { since?: unknown } | null)?.since }, `checkpoint of ${key} holds no plausible position (${JSON.stringify((value as { since?: unknown } | null)?.since)}); it resumes from its bucket entry`)
    }
    return positions
  }

  /** Where an account resumes, if the record has it. */
  positionOf(key: string): Checkpoint | undefined {
    const text = this.positions.get(key)
    return text === undefined ? undefined : (JSON.parse(text) as Checkpoint)
  }

  /** The accounts the record holds, with their positions (its last owner's accounts). */
  *accounts(): IterableIterator<[string, Checkpoint]> {
    for (const [key, text] of this.positions) yield [key, JSON.parse(text) as Checkpoint]
  }

  /** An account removed from the bucket: its position leaves the record (written within a second). */
  forget(key: string, account?: Positioned): void {
    if (account) this.dirty?.delete(account)
    if (this.positions.delete(key) && !this.dropped) this.timer ??= setTimeout(() => void this.flush(), WRITE_EVERY_MS)
  }

  /** An account's position moved (or it stopped): asked for and written within a second. */
  moved(account: Positioned): void {
    if (this.dropped) return
    ;(this.dirty ??= new Set()).add(account)
    this.timer ??= setTimeout(() => void this.flush(), WRITE_EVERY_MS)
  }

  /**
   * Writes what moved now (one write at a time; nothing when nothing changed, when fenced, or once
   * dropped). A handover awaits this before giving the lease back.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    while (this.writing) await this.writing
    if (this.dropped || this.hooks.fenced()) return
    for (const account of this.dirty ?? []) this.positions.set(account.watched.key, checkpointText(account.checkpoint()))
    this.dirty = undefined
    const text = this.text()
    const hash = hashText(text)
    if (hash === this.written) return
    this.writing = this.write(text, hash).finally(() => {
      this.writing = undefined
    })
    await this.writing
  }

  /** Stops writing for good: the partition was lost (its next owner writes from now on). */
  drop(): void {
    this.dropped = true
    clearTimeout(this.timer)
    this.timer = undefined
    this.dirty = undefined
  }

  private async write(text: string, hash: number): Promise<void> {
    const key = recordKey(this.partition)
    try {
      this.revision = await this.kv.update(key, text, this.revision)
      this.written = hash
      this.hooks.wrote()
      return
    } catch (error) {
      const message = (error as Error)?.message ?? String(error)
      if (!CONFLICT.test(message)) {
        this.hooks.failed(/payload/i.test(message) ? `${message}: a partition's record is too large for one NATS message; deploy with more partitions` : message)
        this.retryLater()
        return
      }
    }
    // The revision moved: a write of ours that timed out but was stored moves it too. The record's
    // claim says whose it is.
    try {
      const entry = await this.kv.get(key)
      const claim = entry?.operation === 'PUT' ? (JSON.parse(entry.string()) as { claim?: unknown }).claim : undefined
      if (entry && claim === this.claimId) {
        this.revision = entry.revision
        this.retryLater()
        return
      }
    } catch (error) {
      this.hooks.failed((error as Error)?.message ?? String(error))
      this.retryLater()
      return
    }
    this.drop()
    this.hooks.stale(this)
  }

  private retryLater(): void {
    if (this.dropped) return
    this.written = undefined
    this.timer ??= setTimeout(() => void this.flush(), WRITE_EVERY_MS)
  }

  private text(): string {
    return recordText(this.owner, this.claimId, this.positions)
  }
}

/**
 * A partition record's text: who wrote it, under which claim, and each account's checkpoint (given as
 * its JSON text, so thousands are joined, not re-serialized).
 *
 * @example
 * recordText('migrate', 'migrate', new Map([['1.beta.0xabc…', '{"since":1763800000,"ids":[]}']]))
 */
export function recordText(owner: string, claim: string, positions: Iterable<[string, string]>): string {
  let accounts = ''
  for (const [key, value] of positions) accounts += `${accounts ? ',' : ''}${JSON.stringify(key)}:${value}`
  return `{"owner":${JSON.stringify(owner)},"claim":${JSON.stringify(claim)},"accounts":{${accounts}}}`
}

/** A checkpoint's JSON text as a record holds it; undefined when it is not a plausible position. */
export function checkpointTextOf(value: unknown): string | undefined {
  const c = value as Partial<Checkpoint> | null
  return isPlausiblePosition(c?.since) && Array.isArray(c.ids) && c.ids.every((id) => typeof id === 'string') ? checkpointText({ since: c.since, ids: c.ids }) : undefined
}
