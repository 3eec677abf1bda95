/**
 * The reconnect delay: `min(base·2^retry, max) × random in [0.5, 1]`, `retry` counting from 0.
 *
 * @example
 * backoffDelay(0, { baseDelayMs: 500, maxDelayMs: 10_000 }, () => 1) // 500
 */
export function backoffDelay(retry: number, options: { baseDelayMs: number; maxDelayMs: number }, random: () => number = Math.random): number {
  const capped = Math.min(options.baseDelayMs * 2 ** Math.min(retry, 30), options.maxDelayMs)
  return Math.round(capped * (0.5 + random() * 0.5))
}
