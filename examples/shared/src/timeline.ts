import { type Address, type Continuity, type Notification, type NotificationSearchResult, type NotificationsClient, type QuoteState, toNotification } from '@solver-notifications/core'

/**
 * The badge a book shows for its continuity (docs/guide/continuity.md): `synced` (complete),
 * `syncing` (catching up: a gap is being recovered) or `reload` (something may be missing for good:
 * reload what the panel shows). `title` says why, for a tooltip.
 */
export function continuityBadge(c: Continuity | undefined): { label: 'synced' | 'syncing' | 'reload'; className: string; title: string } {
  const state = c?.state ?? 'catching-up'
  const title = c?.reason ? `${state}: ${c.reason}` : state
  if (state === 'complete') return { label: 'synced', className: 'badge status-open', title }
  if (state === 'catching-up') return { label: 'syncing', className: 'badge status-connecting', title }
  return { label: 'reload', className: 'badge status-failed', title }
}

/** How a quote row names its quote: the on-chain id once anchored, the temporary id before. */
export const quoteLabel = (q: QuoteState) => (q.quoteId !== null ? `quote ${q.quoteId}` : `temp ${q.tempQuoteId}`)

/**
 * The "wait for fill" action: resolves when the quote's close has filled, also when the solver never
 * announces it live (the client chases history). Returns the text the row shows.
 */
export async function waitForFill(client: NotificationsClient, account: Address, solverId: string, q: QuoteState): Promise<string> {
  const ids = q.quoteId !== null ? { quoteId: q.quoteId } : { tempQuoteId: q.tempQuoteId ?? undefined }
  try {
    const done = await client.waitFor({ account, solverId, ...ids }, { until: (s) => s.settled, timeoutMs: 60_000 })
    return `filled: ${done.status}`
  } catch (error) {
    return `gave up: ${(error as Error).message}`
  }
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

/** "1 quote", "7 quotes". */
export const quoteCount = (n: number) => (n === 1 ? '1 quote' : `${n} quotes`)
