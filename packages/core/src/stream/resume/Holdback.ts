import { ServiceError } from '../../errors/ServiceError.js'
import type { Notification } from '../../protocol/types.js'
import { isPlausibleTime } from '../../utils/plausibleTime.js'
import type { ClientStats } from '../ClientStats.js'
import { DedupeWindow, type Verdict } from './DedupeWindow.js'

/**
 * What a resume stream delivers, and when: live frames held while history is read (bounded: at the cap
 * they go out in order), every notification once (a de-duplication window), transitions of a quote in
 * `modify_time` order, and the watermark: the newest plausible `modify_time` delivered.
 */
export class Holdback {
  watermark: number
  private held: Notification[] | undefined
  private readonly seen: DedupeWindow

  constructor(
    start: number,
    dedupeWindow: number,
    private readonly maxHeld: number,
    private readonly stats: ClientStats,
    private readonly emit: (n: Notification) => void,
    private readonly report: (error: ServiceError) => void,
    /** the watermark moved */
    private readonly moved: () => void,
  ) {
    this.watermark = start
    this.seen = new DedupeWindow(dedupeWindow)
  }

  /** live frames held now */
  get heldCount(): number {
    return this.held?.length ?? 0
  }

  get holding(): boolean {
    return this.held !== undefined
  }

  /** Whether anything was delivered yet (a position worth writing). */
  get delivered(): boolean {
    return this.seen.entries > 0
  }

  /** Delivered already? (rows history returns that the stream had count for nothing) */
  known(n: Notification): boolean {
    return this.seen.has(n)
  }

  /** From now on live frames wait. */
  hold(): void {
    this.held ??= []
  }

  /** A live frame: delivered now, or held (at the cap, what is held goes out in order, so memory stays bounded). */
  push(n: Notification): void {
    if (!this.held) {
      this.deliver(n)
      return
    }
    this.held.push(n)
    if (this.held.length >= this.maxHeld) {
      const held = this.held
      this.held = []
      this.deliverAll(held)
    }
  }

  /** Delivers what is held, in order, and stops holding. */
  release(): void {
    const held = this.held
    this.held = undefined
    if (held) this.deliverAll(held)
  }

  /** Drops what is held without delivering it (the stream ended). */
  discard(): void {
    this.held = undefined
  }

  /**
   * Delivers what is held together with what history had, sorted by `modify_time`, each once; held
   * live frames go first on equal times, so what both sides had counts as live, not recovered.
   */
  merge(fromHistory: Notification[]): { recovered: number; stale: number } {
    const held = this.held ?? []
    this.held = undefined
    const history = new Set(fromHistory)
    let recovered = 0
    let stale = 0
    for (const n of sortByTime([...held, ...fromHistory])) {
      const verdict = this.deliver(n)
      if (!history.has(n)) continue
      if (verdict === 'new') recovered++
      else if (verdict === 'stale') stale++
    }
    return { recovered, stale }
  }

  private deliverAll(list: Notification[]): void {
    for (const n of sortByTime(list)) this.deliver(n)
  }

  /** Delivers `n` unless it is a duplicate or a history row older than its quote's last delivery; returns the verdict. */
  private deliver(n: Notification): Verdict {
    const plausible = isPlausibleTime(n.modifyTime)
    const verdict = this.seen.verdict(n, plausible)
    if (verdict === 'duplicate') {
      this.stats.frames.dropped.duplicate++
      return verdict
    }
    if (verdict === 'stale') {
      this.stats.frames.dropped.stale++
      return verdict
    }
    this.seen.remember(n, plausible)
    if (plausible && n.modifyTime > this.watermark) {
      this.watermark = n.modifyTime
      this.moved()
    }
    this.emit(n)
    if (!plausible && n.modifyTime !== null) {
      this.report(
        new ServiceError(
          'IMPLAUSIBLE_TIMESTAMP',
          `Quote ${n.quoteId} came with modify_time ${n.modifyTime}, which is not plausible unix seconds (more than a day ahead, or milliseconds?). It was delivered, but it moves neither the resume position nor the quote's order.`,
        ),
      )
    }
    return verdict
  }
}

function sortByTime(list: Notification[]): Notification[] {
  // Stable: equal times keep arrival order; frames without a plausible time go last.
  const rank = (n: Notification) => (isPlausibleTime(n.modifyTime) ? n.modifyTime : Number.POSITIVE_INFINITY)
  return list.sort((a, b) => rank(a) - rank(b))
}
