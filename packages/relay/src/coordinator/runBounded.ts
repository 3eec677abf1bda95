/** Requests a relay sends at once by default (lease operations, claims): 5,000 accounts do not open 5,000 requests at once. */
export const CONCURRENCY = 64

/**
 * Runs `job` over `items` at most `limit` at a time (renewals and takes of up to thousands of partitions).
 *
 * @example
 * await runBounded(partitions, (p) => renew(p), 64)
 */
export async function runBounded<T>(items: readonly T[], job: (item: T) => Promise<void>, limit = CONCURRENCY): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < items.length) await job(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}
