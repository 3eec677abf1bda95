import type { NotificationsConfig, ResolvedSolver } from '../config/types.js'
import { toNotification } from '../protocol/toNotification.js'
import type { Notification } from '../protocol/types.js'
import type { BackfillFetch } from '../stream/GapFiller.js'
import type { Address } from '../utils/address.js'
import type { SearchHttpOptions } from './postJson.js'
import { searchDrivers } from './searchDrivers.js'
import { searchPages } from './searchPages.js'

/** The history side of resume streams: an account's stored notifications at or after a watermark. */
export function createBackfill(config: NotificationsConfig<any>, http: SearchHttpOptions) {
  return (solver: ResolvedSolver, account: Address, maxRows: number): BackfillFetch =>
    async (since, signal) => {
      const protocol = solver.notifications.protocol
      const params = { ...searchDrivers[protocol].backfillParams(account, since), chainId: solver.chainId, solverId: solver.solverId }
      const found: Notification[] = []
      for await (const page of searchPages(config as NotificationsConfig, params, { ...http, signal, maxRows })) {
        for (const row of page.rows) {
          const n = toNotification(row, { protocol, chainId: solver.chainId, solverId: solver.solverId, account })
          if (n.modifyTime === null || n.modifyTime >= since) found.push(n)
        }
      }
      return found
    }
}
