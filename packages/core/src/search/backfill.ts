import type { ResolvedSolver } from '../config/types.js'
import { protocols } from '../protocol/protocols.js'
import { toNotification } from '../protocol/toNotification.js'
import type { Notification } from '../protocol/types.js'
import type { Address } from '../utils/address.js'
import type { SearchHttpOptions } from './postJson.js'
import { pagesOf } from './searchPages.js'

/** Fetches stored notifications of a subscription's account with `modify_time` at or after `since`. */
export type BackfillFetch = (since: number, signal: AbortSignal) => Promise<Notification[]>

/** The history side of resume streams: an account's stored notifications at or after a watermark. */
export function createBackfill(http: SearchHttpOptions) {
  return (solver: ResolvedSolver, account: Address, maxRows: number): BackfillFetch =>
    async (since, signal) => {
      const { protocol } = solver.notifications
      const params = protocols[protocol].search.backfillParams(account, since)
      const found: Notification[] = []
      for await (const page of pagesOf(solver, params, { ...http, signal, maxRows })) {
        for (const row of page.rows) {
          const n = toNotification(row, { protocol, chainId: solver.chainId, solverId: solver.solverId, account })
          if (n.modifyTime === null || n.modifyTime >= since) found.push(n)
        }
      }
      return found
    }
}
