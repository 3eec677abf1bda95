import type { ResolvedSolver } from '../config/types.js'
import { protocols } from '../protocol/protocols.js'
import { searchProtocols } from '../protocol/searchProtocols.js'
import { sealRaw } from '../protocol/frame.js'
import { normalizeFrame } from '../protocol/normalizeNotification.js'
import type { Notification } from '../protocol/types.js'
import type { Address } from '../utils/address.js'
import type { SearchHttpOptions } from './postJson.js'
import { repeatedPageGuard } from './repeatedPage.js'
import { searchSolver } from './searchNotifications.js'
import { searchUnavailable } from './searchUnavailable.js'

/** What a resume stream asks history for. */
export interface BackfillRequest {
  /** unix seconds: notifications changed at or after it */
  since: number
  /** rows to read at most, not counting rows the stream already delivered */
  maxRows: number
  /** whether the stream delivered this one already (live): such rows do not count against `maxRows` (absent: every row counts) */
  known?: ((n: Notification) => boolean) | undefined
  signal: AbortSignal
  /** history stands in for a socket that is down (a poll): the stream's poll interval (ms); polls are spread per endpoint */
  poll?: number | undefined
  /** only this quote's rows (a `waitFor` chase), searched by its id where the service can */
  quote?: { quoteId?: number | undefined; tempQuoteId?: number | undefined } | undefined
}

/** What history had: the account's notifications at or after `since`, and whether the gap was covered. */
export interface BackfillResult {
  notifications: Notification[]
  /** set when `maxRows` stopped the walk before the end: `left` rows were not read */
  truncated: { left: number } | undefined
  /** rows of other accounts the service returned (or rows that name no account on a protocol that routes by it), skipped */
  foreign: number
  /** rows beyond the page size the service returned anyway: dropped, and reported by the stream */
  overlong: number
  /** history rows read and pages asked (diagnostics; absent where history came from another tab) */
  rows?: number | undefined
  pages?: number | undefined
}

/** Fetches what a resume stream may have missed. */
export type BackfillFetch = (request: BackfillRequest) => Promise<BackfillResult>

/**
 * The history side of resume streams: pages until the gap is covered (rasa: every state changed since,
 * newest first; enigma: the account's whole history, in no promised order), bounded by `maxRows`.
 * One attempt, one deadline per request: retrying (with backoff and `Retry-After`) is the stream's job,
 * so a slow history never holds its live frames longer than one request.
 */
export function createBackfill(http: SearchHttpOptions) {
  return (solver: ResolvedSolver, account: Address): BackfillFetch => {
    // A solver whose history cannot be read fails here, at once, not on every retry of every backfill.
    const unavailable = searchUnavailable(solver)
    if (unavailable) throw unavailable
    return async ({ since, maxRows, known, signal, quote }) => {
      const { protocol } = solver.notifications
      const wire = protocols[protocol]
      const search = searchProtocols[protocol]
      const size = search.pageSize
      const params = { ...(quote ? search.quoteParams(account, quote) : search.backfillParams(account, since)), size }
      const mine = account.toLowerCase()
      const notifications: Notification[] = []
      let foreign = 0
      let overlong = 0
      let read = 0
      let start = 0
      let pages = 0
      let rowsSeen = 0
      const repeated = repeatedPageGuard(() => search.request(solver, { ...params, start }).url)
      for (;;) {
        const page = await searchSolver(solver, { ...params, start }, { ...http, retries: 0, signal, longPages: 'allow' })
        pages++
        repeated(page.rows, start)
        const total = search.totalOf(page)
        // A page longer than asked is cut to the size asked (and reported): the limits below count rows, whatever a page holds.
        const rows = page.rows.length > size ? page.rows.slice(0, size) : page.rows
        overlong += page.rows.length - rows.length
        rowsSeen += rows.length
        for (const [index, row] of rows.entries()) {
          if (read >= maxRows) return { notifications, truncated: { left: Math.max(1, total - start - index) }, foreign, overlong, rows: rowsSeen, pages }
          const decoded = search.decodeStored(row as Record<string, unknown>)
          // A row of another account is never delivered as this one's; on a hub, which routes live
          // frames by their address, a row without one belongs to nobody (its live frame is unrouted).
          if (decoded.address === undefined ? wire.multiplexed : decoded.address.toLowerCase() !== mine) {
            foreign++
            continue
          }
          // These rows were parsed here and are never handed out: sealed in place, not copied.
          sealRaw(decoded.raw)
          const n = normalizeFrame(decoded, protocol, solver.chainId, solver.solverId, account, 'backfill')
          if (quote && !isQuote(n, quote)) continue
          if (known?.(n)) continue
          read++
          if (n.modifyTime === null || n.modifyTime >= since) notifications.push(n)
        }
        start += rows.length
        if (rows.length === 0 || rows.length < size || start >= total) return { notifications, truncated: undefined, foreign, overlong, rows: rowsSeen, pages }
        if (read >= maxRows) return { notifications, truncated: { left: total - start }, foreign, overlong, rows: rowsSeen, pages }
      }
    }
  }
}

function isQuote(n: Notification, quote: { quoteId?: number | undefined; tempQuoteId?: number | undefined }): boolean {
  return (quote.quoteId !== undefined && n.quoteId === quote.quoteId) || (quote.tempQuoteId !== undefined && n.tempQuoteId === quote.tempQuoteId)
}
