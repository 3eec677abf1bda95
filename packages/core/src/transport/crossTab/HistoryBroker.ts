import type { ResolvedSolver } from '../../config/types.js'
import type { Address } from '../../utils/address.js'
import type { HistoryAnswer, HistoryAsk, HistoryReader } from '../ListenerPool.js'
import type { Timers } from '../Timers.js'

/**
 * How long the leader waits for the other tabs' asks of the same stream key before it reads: a socket
 * drop reaches every tab within a channel round trip, and their backfills then become one read.
 */
export const COALESCE_MS = 50
/** Poll answers are kept this long at most (a tab's own poll interval decides whether one is recent enough). */
const KEEP_MS = 60_000

interface Asker {
  since: number
  resolve: (answer: HistoryAnswer) => void
  reject: (error: unknown) => void
  signal: AbortSignal
  onAbort: () => void
}

/** Asks of one stream key and `since` waiting for the read they share. */
interface Batch {
  key: string
  since: number
  maxRows: number
  /** the smallest poll interval of its asks; undefined once a backfill (not a poll) asks */
  poll: number | undefined
  askers: Set<Asker>
  timer: ReturnType<typeof setTimeout> | undefined
  controller: AbortController | undefined
}

/**
 * The leader tab's history reads for every tab (docs/guide/cross-tab.md, "One history reader"): the
 * asks of one stream key (chain, solver, account) and `since` made within {@link COALESCE_MS} become
 * one read, whose answer each tab's resume stream merges itself (its own de-duplication and order). A
 * backfill always reads anew (it must see what was stored up to now); a poll may take the answer of a
 * read of the same key from an earlier or equal `since` that is under way or started less than its
 * own interval ago (the reconnect backfill that follows every poll reads anew, so nothing is lost to
 * an older answer). A read whose askers all went away is stopped.
 */
export class HistoryBroker {
  readonly #waiting = new Map<string, Batch>()
  /** reads under way, by stream key */
  readonly #reading = new Map<string, Set<Batch>>()
  readonly #recent = new Map<string, { at: number; since: number; answer: HistoryAnswer }>()

  readonly #reader: HistoryReader
  readonly #timers: Timers

  constructor(
    reader: HistoryReader,
    timers: Timers) {
    this.#reader = reader
    this.#timers = timers
  }

  read(solver: ResolvedSolver, account: Address, ask: HistoryAsk): Promise<HistoryAnswer> {
    const key = `${solver.chainId}|${solver.solverId}|${account.toLowerCase()}`
    if (ask.poll !== undefined) {
      const recent = this.#recent.get(key)
      if (recent && recent.since <= ask.since && this.#timers.now() - recent.at < ask.poll) return Promise.resolve(from(recent.answer, ask.since))
    }
    const id = `${key}|${ask.since}`
    let batch = this.#waiting.get(id)
    if (!batch && ask.poll !== undefined) {
      for (const under of this.#reading.get(key) ?? []) if (under.since <= ask.since) batch = under
    }
    if (!batch) {
      const created: Batch = { key, since: ask.since, maxRows: ask.maxRows, poll: ask.poll, askers: new Set(), timer: undefined, controller: undefined }
      created.timer = this.#timers.set(() => this.#start(id, created, solver, account), COALESCE_MS)
      this.#waiting.set(id, created)
      batch = created
    } else {
      batch.maxRows = Math.max(batch.maxRows, ask.maxRows)
      batch.poll = batch.poll === undefined || ask.poll === undefined ? undefined : Math.min(batch.poll, ask.poll)
    }
    const joined = batch
    return new Promise<HistoryAnswer>((resolve, reject) => {
      const asker: Asker = {
        since: ask.since,
        resolve,
        reject,
        signal: ask.signal,
        onAbort: () => {
          joined.askers.delete(asker)
          reject(ask.signal.reason)
          if (joined.askers.size > 0) return
          // Nobody waits for it any more: not read, or the read stops.
          joined.timer = this.#timers.clear(joined.timer)
          if (this.#waiting.get(id) === joined) this.#waiting.delete(id)
          joined.controller?.abort()
        },
      }
      if (ask.signal.aborted) {
        reject(ask.signal.reason)
        return
      }
      ask.signal.addEventListener('abort', asker.onAbort, { once: true })
      joined.askers.add(asker)
    })
  }

  #start(id: string, batch: Batch, solver: ResolvedSolver, account: Address): void {
    batch.timer = undefined
    this.#waiting.delete(id)
    let under = this.#reading.get(batch.key)
    if (!under) this.#reading.set(batch.key, (under = new Set()))
    under.add(batch)
    const controller = new AbortController()
    batch.controller = controller
    const at = this.#timers.now()
    // Rows another tab delivered count against maxRows here (the reader cannot ask every tab).
    this.#reader(solver, account, { since: batch.since, maxRows: batch.maxRows, poll: batch.poll, signal: controller.signal }).then(
      (answer) => {
        this.#keep(batch.key, at, batch.since, answer)
        this.#settle(batch, (asker) => asker.resolve(asker.since === batch.since ? answer : from(answer, asker.since)))
      },
      (error: unknown) => this.#settle(batch, (asker) => asker.reject(error)),
    )
  }

  #settle(batch: Batch, outcome: (asker: Asker) => void): void {
    const under = this.#reading.get(batch.key)
    under?.delete(batch)
    if (under?.size === 0) this.#reading.delete(batch.key)
    for (const asker of batch.askers) {
      asker.signal.removeEventListener('abort', asker.onAbort)
      outcome(asker)
    }
    batch.askers.clear()
  }

  /** The newest answer per key, for polls of the other tabs; old ones go (memory bounded by time). */
  #keep(key: string, at: number, since: number, answer: HistoryAnswer): void {
    for (const [k, r] of this.#recent) if (at - r.at > KEEP_MS) this.#recent.delete(k)
    const had = this.#recent.get(key)
    if (!had || had.at <= at) this.#recent.set(key, { at, since, answer })
  }
}

/** An answer for a later `since`: what changed before it is left out (the asker has it). */
function from(answer: HistoryAnswer, since: number): HistoryAnswer {
  const notifications = answer.notifications.filter((n) => n.modifyTime === null || n.modifyTime >= since)
  return { ...answer, notifications }
}
