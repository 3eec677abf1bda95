import type { isSameNotification } from '../protocol/notificationKey.js'
import type { Notification } from '../protocol/types.js'
import type { Address } from '../utils/address.js'
import { QuoteListVersion } from './QuoteList.js'
import type { QuoteState } from './QuoteState.js'
import { START, type StatusFold, isPlainDecimal, isSettled, nextStatus } from './quoteStatus.js'

/** What a quote's derived fields fold over: the status fold and the newest values reported. */
interface Fold {
  status: StatusFold
  filledAmountOpen: string | null
  filledAmountClose: string | null
  avgPriceOpen: string | null
  avgPriceClose: string | null
  createTime: number | null
}

const EMPTY: Fold = { status: START, filledAmountOpen: null, filledAmountClose: null, avgPriceOpen: null, avgPriceClose: null, createTime: null }

function step(fold: Fold, n: Notification): Fold {
  return {
    status: nextStatus(fold.status, n),
    filledAmountOpen: n.filledAmountOpen ?? fold.filledAmountOpen,
    filledAmountClose: n.filledAmountClose ?? fold.filledAmountClose,
    avgPriceOpen: n.avgPriceOpen ?? fold.avgPriceOpen,
    avgPriceClose: n.avgPriceClose ?? fold.avgPriceClose,
    createTime: fold.createTime === null ? n.createTime : n.createTime === null ? fold.createTime : Math.min(fold.createTime, n.createTime),
  }
}

/** One quote as the ledger keeps it. */
interface Entry {
  readonly key: string
  quoteId: number | null
  tempQuoteId: number | null
  /** kept transitions, in `modify_time` order (frames without a time last, in arrival order) */
  transitions: Notification[]
  /** the fold over transitions dropped at the `maxTransitions` cap */
  base: Fold
  /** the fold over everything */
  fold: Fold
  state: QuoteState | undefined
  /** an amount that is not a plain decimal was reported for this quote (once is enough) */
  reported: boolean
}

const timeOf = (n: Notification) => n.modifyTime ?? Number.POSITIVE_INFINITY

/**
 * The quotes of one account, built from notifications in any order and any number of times (docs/architecture.md, "Quote state"):
 * joins a quote's temporary and on-chain ids into one entry whose key never changes, keeps its newest
 * `maxTransitions` transitions in `modify_time` order without duplicates, derives its state, and makes
 * a new immutable {@link QuoteState} only for a quote that changed. Framework-free and synchronous.
 */
export class QuoteLedger {
  readonly #byQuoteId = new Map<number, Entry>()
  readonly #byTempId = new Map<number, Entry>()
  readonly #entries = new Set<Entry>()
  #version = QuoteListVersion.empty()
  #removed: QuoteState[] = []
  #added: QuoteState[] = []
  /** how many entries were made per key base, so a reused temporary id gets a key of its own */
  readonly #keyUses = new Map<string, number>()

  readonly #account: Address
  readonly #maxTransitions: number
  /**
     * `isSameNotification`, handed over by whoever loads this chunk: a lazy chunk imports nothing of
     * the code every app loads (docs/architecture.md, "Lazy chunks").
     */
  readonly #same: typeof isSameNotification
  /** told once per quote when an amount is not a plain decimal (that quote then never settles from it) */
  readonly #onIssue: (message: string) => void

  constructor(
    account: Address,
    maxTransitions: number,
    same: typeof isSameNotification,
    onIssue: (message: string) => void = () => {}) {
    this.#account = account
    this.#maxTransitions = maxTransitions
    this.#same = same
    this.#onIssue = onIssue
  }

  get size(): number {
    return this.#entries.size
  }

  /** Adds one transition; returns the quote's new state, or undefined when nothing changed (a duplicate). */
  apply(n: Notification): QuoteState | undefined {
    const entry = this.#entryFor(n)
    if (!this.#insert(entry, n)) return undefined
    if (!entry.reported) this.#checkAmounts(entry, n)
    return this.#refresh(entry)
  }

  /** The current state of a quote, by either id. */
  get(ids: { quoteId?: number | undefined; tempQuoteId?: number | undefined }): QuoteState | undefined {
    const entry = (ids.quoteId !== undefined ? this.#byQuoteId.get(ids.quoteId) : undefined) ?? (ids.tempQuoteId !== undefined ? this.#byTempId.get(ids.tempQuoteId) : undefined)
    return entry?.state
  }

  /** The quotes now, as a lazily built version of the sorted list (a new version only when something changed). */
  list(): QuoteListVersion {
    if (this.#removed.length > 0 || this.#added.length > 0) {
      this.#version = new QuoteListVersion(this.#version, this.#removed, this.#added, this.#entries.size)
      this.#removed = []
      this.#added = []
    }
    return this.#version
  }

  #entryFor(n: Notification): Entry {
    const onChain = n.quoteId > 0 ? n.quoteId : undefined
    const temp = n.tempQuoteId ?? undefined
    const byQuote = onChain === undefined ? undefined : this.#byQuoteId.get(onChain)
    let byTemp = temp === undefined ? undefined : this.#byTempId.get(temp)
    // Temporary ids are reused: once one is anchored to an on-chain id, a frame naming another on-chain
    // id is another quote, and so is an open with the temporary id alone that comes after that quote
    // settled (an older one arriving late still belongs to it).
    if (byTemp && byTemp !== byQuote && byTemp.quoteId !== null) {
      const settled = byTemp.state
      const reused =
        onChain !== undefined
          ? onChain !== byTemp.quoteId
          : n.phase === 'open' && settled !== undefined && settled.settled && n.modifyTime !== null && settled.modifyTime !== null && n.modifyTime > settled.modifyTime
      if (reused) byTemp = undefined
    }
    let entry = byQuote ?? byTemp
    if (byQuote && byTemp && byQuote !== byTemp) entry = this.#join(byTemp, byQuote)
    if (!entry) {
      entry = {
        key: this.#newKey(temp !== undefined ? `t${temp}` : `q${n.quoteId}`),
        quoteId: null,
        tempQuoteId: null,
        transitions: [],
        base: EMPTY,
        fold: EMPTY,
        state: undefined,
        reported: false,
      }
      this.#entries.add(entry)
    }
    if (onChain !== undefined && entry.quoteId === null) {
      entry.quoteId = onChain
      this.#byQuoteId.set(onChain, entry)
    }
    if (temp !== undefined && entry.tempQuoteId === null) entry.tempQuoteId = temp
    // The temporary id names its newest quote from now on.
    if (temp !== undefined && entry.tempQuoteId === temp) this.#byTempId.set(temp, entry)
    return entry
  }

  /** The first id a quote is seen by names it for good (a temporary one when known); a reused one gets `~2`, `~3`, … */
  #newKey(base: string): string {
    const uses = (this.#keyUses.get(base) ?? 0) + 1
    this.#keyUses.set(base, uses)
    return uses === 1 ? base : `${base}~${uses}`
  }

  #checkAmounts(entry: Entry, n: Notification): void {
    for (const [field, value] of [['filledAmountOpen', n.filledAmountOpen], ['filledAmountClose', n.filledAmountClose]] as const) {
      if (value === null || isPlainDecimal(value)) continue
      entry.reported = true
      this.#onIssue(
        `quote ${entry.quoteId ?? entry.tempQuoteId}: ${field} ${JSON.stringify(value)} is not a plain decimal string, so it is never compared and the quote is not settled by it; the solver sent a malformed amount.`,
      )
      return
    }
  }

  /** One quote seen under both ids before a frame linked them: the older entry (its key) absorbs the other. */
  #join(keep: Entry, other: Entry): Entry {
    this.#entries.delete(other)
    if (other.state) this.#removed.push(other.state)
    for (const [id, e] of this.#byQuoteId) if (e === other) this.#byQuoteId.set(id, keep)
    for (const [id, e] of this.#byTempId) if (e === other) this.#byTempId.set(id, keep)
    keep.quoteId ??= other.quoteId
    keep.tempQuoteId ??= other.tempQuoteId
    for (const n of other.transitions) this.#insert(keep, n)
    return keep
  }

  /** Puts `n` in order; false when it is a duplicate or older than everything a full quote keeps. */
  #insert(entry: Entry, n: Notification): boolean {
    const list = entry.transitions
    for (let i = list.length - 1; i >= 0; i--) if (this.#same(list[i]!, n)) return false
    const t = timeOf(n)
    let at = list.length
    while (at > 0 && timeOf(list[at - 1]!) > t) at--
    if (at === 0 && list.length >= this.#maxTransitions) return false
    if (at === list.length) {
      list.push(n)
      entry.fold = step(entry.fold, n)
    } else {
      list.splice(at, 0, n)
      entry.fold = list.reduce(step, entry.base)
    }
    while (list.length > this.#maxTransitions) {
      entry.base = step(entry.base, list.shift()!)
    }
    return true
  }

  #refresh(entry: Entry): QuoteState {
    const { fold } = entry
    const newest = entry.transitions[entry.transitions.length - 1]!
    let modifyTime: number | null = null
    for (let i = entry.transitions.length - 1; i >= 0 && modifyTime === null; i--) modifyTime = entry.transitions[i]!.modifyTime
    const state: QuoteState = Object.freeze({
      key: entry.key,
      quoteId: entry.quoteId,
      tempQuoteId: entry.tempQuoteId,
      account: this.#account,
      status: fold.status.status,
      phase: newest.phase,
      type: newest.type,
      lastSeenAction: newest.lastSeenAction,
      actionStatus: newest.actionStatus,
      filledAmountOpen: fold.filledAmountOpen,
      filledAmountClose: fold.filledAmountClose,
      avgPriceOpen: fold.avgPriceOpen,
      avgPriceClose: fold.avgPriceClose,
      failureType: newest.failureType,
      failureMessage: newest.failureMessage,
      errorCode: newest.errorCode,
      createTime: fold.createTime,
      modifyTime,
      transitions: Object.freeze(entry.transitions.slice()),
      settled: isSettled(fold.status.status),
    })
    if (entry.state) this.#removed.push(entry.state)
    this.#added.push(state)
    entry.state = state
    return state
  }
}
