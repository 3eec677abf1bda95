import type { Notification } from './types.js'

/**
 * One readable log line for a notification: time, solver, account, quote, type, phase, action.
 *
 * @example
 * client.notifications({ account }).subscribe((n) => console.log(formatNotification(n)))
 * // 12:00:04 arbitrum/alpha 0xAbC0…0001 quote 9565 success fill SendQuote
 */
export function formatNotification(n: Notification): string {
  const time = n.modifyTime === null ? '--:--:--' : new Date(n.modifyTime * 1000).toISOString().slice(11, 19)
  const account = `${n.account.slice(0, 6)}…${n.account.slice(-4)}`
  const quote = n.onChain ? `quote ${n.quoteId}` : `temp ${n.quoteId}`
  const failure = n.type === 'failed' && n.failureType ? ` (${n.failureType}${n.errorCode === null ? '' : ` #${n.errorCode}`})` : ''
  const source = n.source === 'backfill' ? ' [backfill]' : ''
  return `${time} ${n.chainId}/${n.solverId} ${account} ${quote} ${n.type} ${n.phase} ${n.lastSeenAction ?? '-'}${failure}${source}`
}
