import { isPlausiblePosition } from '@solver-notifications/core/internal'
import { type WatchedAccount, parseAccountKey } from '../accountKeys.js'
import { parseStoredKey, storedKey } from '../deployment.js'
import { partitionOf } from '../partitions.js'
import type { BucketEntry } from '../readBucket.js'
import type { RelayLogger } from '../relayLogger.js'
import type { RelayMetrics } from '../RelayMetrics.js'

/** An account this relay wants: the account itself, where it resumes from, and its partition. */
export type WantedAccount = WatchedAccount & { since: number; partition: number }

/**
 * One object per account, built field by field: a spread copy gets a hidden class (and a property array) of
 * its own per object, ~0.3 KiB per account on V8.
 */
function wantedAccount(w: WatchedAccount, since: number, partition: number): WantedAccount {
  return { key: w.key, chainId: w.chainId, solverId: w.solverId, account: w.account, since, partition }
}

/** What an entry of the accounts bucket meant to the table. */
export type EntryVerdict =
  /** not where this layout stores an account: reported, not watched */
  | { kind: 'misplaced' }
  /** an account of a partition this relay does not hold (kept nowhere: an account it does not own costs it no memory) */
  | { kind: 'other' }
  | { kind: 'removed'; key: string; partition: number }
  | { kind: 'put'; key: string; partition: number }
  /** its key is not an account key (logged) */
  | { kind: 'invalid' }

/**
 * The accounts of the partitions this relay holds, as the bucket and the checkpoint records tell them, and
 * the keys of the bucket that are not where this layout stores an account. Written only by the coordinator's
 * event loop.
 *
 * @example
 * const table = new AccountTable(1_024, metrics, logger)
 * table.fromRecord('42161.beta.0xabc…', 17, 1_763_700_000)
 */
export class AccountTable {
  /** the accounts of the partitions this relay holds, by key */
  readonly wanted = new Map<string, WantedAccount>()
  readonly #byPartition = new Map<number, Set<string>>()
  /** keys of the bucket that are not where this layout stores an account, reported once each */
  readonly #misplaced = new Set<string>()

  constructor(
    private readonly partitions: number,
    private readonly metrics: RelayMetrics,
    private readonly logger: RelayLogger,
  ) {}

  /** How many keys of the bucket are misplaced (they are not accounts: the bucket's count leaves them out). */
  get misplacedCount(): number {
    return this.#misplaced.size
  }

  /** The keys of a partition's accounts. */
  keysOf(partition: number): ReadonlySet<string> {
    return this.#byPartition.get(partition) ?? EMPTY
  }

  /** An account of a partition's checkpoint record, watched at once when the partition is taken (the bucket's read confirms it after). */
  fromRecord(key: string, partition: number, since: number): void {
    if (this.wanted.has(key)) return
    let watched: WatchedAccount
    try {
      watched = parseAccountKey(key)
    } catch {
      return // not an account key: the bucket's read decides
    }
    this.#add(wantedAccount(watched, since, partition))
  }

  /** An account removed from the bucket: its key leaves the table. */
  remove(key: string, partition: number): void {
    this.wanted.delete(key)
    this.#byPartition.get(partition)?.delete(key)
  }

  /** A partition let go: its accounts are forgotten. */
  forget(partition: number): void {
    for (const key of this.#byPartition.get(partition) ?? []) this.wanted.delete(key)
    this.#byPartition.delete(partition)
  }

  /** Where an entry of the accounts bucket belongs (`p<n>.<key>`), before it is applied. */
  locate(e: BucketEntry): { key: string; partition: number } | undefined {
    const stored = parseStoredKey(e.key)
    if (!stored || partitionOf(stored.key, this.partitions) !== stored.partition) {
      this.#reportMisplaced(e, stored?.key)
      return undefined
    }
    return stored
  }

  /** Applies an entry of a partition this relay holds: the account added, moved or removed. */
  apply(e: BucketEntry, where: { key: string; partition: number }): EntryVerdict {
    const { key, partition } = where
    if (e.operation !== 'PUT') {
      const before = this.wanted.get(key)
      if (!before) return { kind: 'other' }
      this.remove(key, before.partition)
      return { kind: 'removed', key, partition: before.partition }
    }
    let watched: WatchedAccount
    try {
      watched = parseAccountKey(key)
    } catch (error) {
      this.logger.warn({ key }, (error as Error).message)
      return { kind: 'invalid' }
    }
    this.#add(wantedAccount(watched, this.#sinceOf(e, key), partition))
    return { kind: 'put', key, partition }
  }

  #add(account: WantedAccount): void {
    this.wanted.set(account.key, account)
    let members = this.#byPartition.get(account.partition)
    if (!members) this.#byPartition.set(account.partition, (members = new Set()))
    members.add(account.key)
  }

  /** Where an account starts: its entry's `since` when plausible, else when the key was put. */
  #sinceOf(e: BucketEntry, key: string): number {
    let since = Math.floor(e.created.getTime() / 1000)
    try {
      const value = e.length > 0 ? e.json<{ since?: unknown }>() : {}
      if (isPlausiblePosition(value?.since)) since = value.since
      else if (value?.since !== undefined) {
        // A position in milliseconds (or days ahead) would make the backfill wait for a future that never comes.
        this.logger.warn({ account: key, since: value.since }, `account ${key}: since ${JSON.stringify(value.since)} is not unix seconds (milliseconds?); relaying from when the key was put (${since})`)
      }
    } catch {
      this.logger.warn({ account: key }, `account ${key}: value is not JSON; using {}`)
    }
    return since
  }

  /**
   * Keys of the accounts bucket that are not where this layout stores an account (the old unpartitioned
   * form written by hand, or a key under another partition than its own): reported once each, never
   * watched, not counted as accounts.
   */
  #reportMisplaced(e: BucketEntry, key: string | undefined): void {
    if (e.operation !== 'PUT') {
      this.#misplaced.delete(e.key)
      return
    }
    if (this.#misplaced.has(e.key)) return
    this.#misplaced.add(e.key)
    this.metrics.misplacedKeys++
    const where = key === undefined ? 'is not stored under a partition' : 'is stored under another partition than its own'
    const fix = key === undefined ? '' : ` (this layout stores it as "${storedKey(key, this.partitions)}")`
    this.logger.warn(
      { key: e.key },
      `accounts bucket key "${e.key}" ${where}${fix}: it is not watched and not counted. Move it with "solver-relay migrate" (relays drained first), or delete it and add the account again with "solver-relay accounts add".`,
    )
  }
}

const EMPTY: ReadonlySet<string> = new Set()
