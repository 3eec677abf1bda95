import { type Notification, type NotificationSearchResult, toNotification } from '@solver-notifications/core'

/** One quote's notifications, oldest first; keyed by the temporary id so anchoring keeps the group. */
export interface QuoteGroup {
  key: number
  quoteId: number
  onChain: boolean
  latest: Notification
  entries: Notification[]
}

/** Adds a notification to the timeline (newest group first), returning a new array for frameworks that compare by identity. */
export function addToTimeline(groups: readonly QuoteGroup[], n: Notification): QuoteGroup[] {
  const key = n.tempQuoteId ?? n.quoteId
  const index = groups.findIndex((g) => g.key === key)
  const previous = index === -1 ? undefined : groups[index]!
  const entries = [...(previous?.entries ?? []), n].sort((a, b) => (a.modifyTime ?? 0) - (b.modifyTime ?? 0))
  const latest = entries[entries.length - 1]!
  const group: QuoteGroup = { key, quoteId: n.onChain ? n.quoteId : (previous?.quoteId ?? n.quoteId), onChain: n.onChain || (previous?.onChain ?? false), latest, entries }
  const rest = groups.filter((_, i) => i !== index)
  return [group, ...rest]
}

/** Search rows of either protocol, normalized for display with core's toNotification. */
export function searchRows(result: NotificationSearchResult | undefined, chainId: number, solverId: string): Notification[] {
  if (!result) return []
  return result.rows.map((row) => toNotification(row, { protocol: result.kind, chainId, solverId }))
}

export const time = (n: Notification) => (n.modifyTime === null ? '—' : new Date(n.modifyTime * 1000).toLocaleTimeString('en-GB'))
export const amount = (n: Notification) =>
  [n.filledAmountOpen && `filled ${n.filledAmountOpen} @ ${n.avgPriceOpen ?? '?'}`, n.filledAmountClose && `closed ${n.filledAmountClose} @ ${n.avgPriceClose ?? '?'}`]
    .filter(Boolean)
    .join(' · ')
