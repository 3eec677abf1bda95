import type { RelayLogger } from './relayLogger.js'

/** How often an aggregated line is written at most, per kind. */
export const REPEATED_LINE_MS = 1_000

/**
 * One `warn` line per kind and second, not one per partition or message: what an outage makes by the
 * thousand (1,024 lost partitions in a millisecond, a failed publish per message) is counted by cause
 * and written once — `lost partitions: 1024 in 1 s (lease not renewed × 1020, taken by another × 4)` —
 * with the first occurrence's fields as an example. The counts also go to the metrics, which are exact.
 *
 * @example
 * const lines = new RepeatedLines(logger)
 * lines.add('publishes failed, retrying', 'no-stream', { account })
 * lines.flush() // at close: what is counted is written now
 */
export class RepeatedLines {
  readonly #kinds = new Map<string, { causes: Map<string, number>; first: object; since: number }>()
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly logger: RelayLogger,
    private readonly intervalMs = REPEATED_LINE_MS,
  ) {}

  /** One occurrence of `kind` for `cause`; written with the others of its second. */
  add(kind: string, cause: string, fields: object = {}): void {
    let k = this.#kinds.get(kind)
    if (!k) this.#kinds.set(kind, (k = { causes: new Map(), first: fields, since: Date.now() }))
    k.causes.set(cause, (k.causes.get(cause) ?? 0) + 1)
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), this.intervalMs)
      this.#timer.unref?.()
    }
  }

  /** Writes what was counted, one line per kind. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    for (const [kind, { causes, first, since }] of this.#kinds) {
      let total = 0
      for (const n of causes.values()) total += n
      const byCause = [...causes].sort((a, b) => b[1] - a[1]).map(([cause, n]) => `${cause} × ${n}`)
      const seconds = Math.max(1, Math.round((Date.now() - since) / 1000))
      this.logger.warn({ ...first, count: total, causes: Object.fromEntries(causes) }, `${kind}: ${total} in ${seconds} s (${byCause.join(', ')})`)
    }
    this.#kinds.clear()
  }
}
