import { ServiceError } from '../../errors/ServiceError.js'
import type { Notification } from '../../protocol/types.js'
import type { Diagnostics } from '../../transport/Diagnostics.js'
import { isPlausibleTime } from '../../utils/plausibleTime.js'
import type { ClientStats } from '../ClientStats.js'
import { DedupeWindow, type Verdict } from './DedupeWindow.js'

/** What a holdback tells its stream. */
export interface HoldbackHost {
  emit(n: Notification): void
  report(error: ServiceError): void
  readonly settings: { readonly dedupeWindow: number; readonly maxHeldFrames: number }
  readonly stats: ClientStats
  /** the subscriber let go (possibly from inside a delivery): nothing more goes out */
  readonly stopped: boolean
  /** the client's diagnostics seam: a held live frame's delivery is timed from its arrival */
  readonly diagnostics: Diagnostics | undefined
}

/**
 * What a resume stream delivers, and when: live frames held while history is read (bounded: at the cap
 * they go out in order), every notification once (a de-duplication window), transitions of a quote in
 * `modify_time` order. The watermark (the newest plausible `modify_time` delivered) is the stream's:
 * what delivers returns the newest plausible time it delivered (it calls nothing back: the stream
 * reduces that once, after), and the stream says when de-duplication may forget.
 */
export class Holdback {
  #held: Notification[] | undefined
  /**
   * How many of the held frames came before the socket dropped during a backfill: the backfill that
   * finishes covers those, the frames after it wait for the next one (they may be newer than rows of
   * the new gap).
   */
  #splitAt: number | undefined
  /** history rows kept held for the next merge (they count as recovered when they go out) */
  #carried: Set<Notification> | undefined
  /** made at the first delivery: an idle stream (thousands on a relay) holds none */
  #seen: DedupeWindow | undefined

  /** the stream it serves, which also holds its settings and counters (one reference: thousands of idle streams stay small) */
  readonly #host: HoldbackHost

  constructor(
    host: HoldbackHost) {
    this.#host = host
  }

  /** Memory bounded by time: what no later backfill can return again (older than `floor`, with a margin) is forgotten. */
  forget(floor: number): void {
    this.#seen?.forgetBefore(floor - OVERLAP_S)
  }

  /** live frames held now */
  get heldCount(): number {
    return this.#held?.length ?? 0
  }

  get holding(): boolean {
    return this.#held !== undefined
  }

  /** Whether anything was delivered yet (a position worth writing). */
  get delivered(): boolean {
    return (this.#seen?.entries ?? 0) > 0
  }

  /** Delivered already? (rows history returns that the stream had count for nothing) */
  known(n: Notification): boolean {
    return this.#seen?.has(n) ?? false
  }

  /** From now on live frames wait. */
  hold(): void {
    this.#held ??= []
  }

  /** The socket dropped while a backfill runs: what is held now is merged with it, what comes later waits for the next. */
  split(): void {
    this.#splitAt ??= this.#held?.length ?? 0
  }

  /** The oldest plausible `modify_time` held, if any (a position must not pass a frame that was never delivered). */
  oldestHeld(): number | undefined {
    let oldest: number | undefined
    for (const n of this.#held ?? []) if (isPlausibleTime(n.modifyTime) && (oldest === undefined || n.modifyTime < oldest)) oldest = n.modifyTime
    return oldest
  }

  /**
   * A live frame: delivered now, or held (at the cap, what is held goes out in order, so memory stays
   * bounded). Returns the newest plausible `modify_time` it delivered, if any.
   */
  push(n: Notification): number | undefined {
    if (!this.#held) return this.#deliver(n) === 'new' ? timeOf(n) : undefined
    this.#held.push(n)
    const d = this.#host.diagnostics
    if (d?.active) d.emit({ type: 'held', notification: n })
    if (this.#held.length >= this.#host.settings.maxHeldFrames) {
      const held = this.#held
      this.#held = []
      if (this.#splitAt !== undefined) this.#splitAt = 0
      this.#carried = undefined
      return this.#deliverAll(held)
    }
    return undefined
  }

  /** Delivers what is held, in order, and stops holding; returns the newest plausible `modify_time` delivered. */
  release(): number | undefined {
    const held = this.#held
    this.#held = undefined
    this.#splitAt = undefined
    this.#carried = undefined
    return held ? this.#deliverAll(held) : undefined
  }

  /** Drops what is held without delivering it (the stream ended). */
  discard(): void {
    const d = this.#host.diagnostics
    // They leave the pipeline here (they were counted as delivered frames when they arrived).
    if (d?.active) for (const n of this.#held ?? []) d.emit({ type: 'released', notification: n })
    this.#held = undefined
    this.#splitAt = undefined
    this.#carried = undefined
  }

  /**
   * Delivers what is held together with what history had, sorted by `modify_time`, each once; held
   * live frames go first on equal times, so what both sides had counts as live, not recovered.
   * `newest`: the newest plausible `modify_time` delivered.
   */
  merge(fromHistory: Notification[], onRecovered?: (n: Notification) => void): { recovered: number; stale: number; newest: number | undefined } {
    const history = new Set(fromHistory)
    for (const n of this.#carried ?? []) history.add(n)
    this.#carried = undefined
    let ready = [...(this.#held ?? []), ...fromHistory]
    this.#held = undefined
    if (this.#splitAt !== undefined) {
      // The socket dropped during this backfill: frames held after the drop wait for the next one, and
      // so does everything of their quotes (rows of this one included), so a quote's transitions still
      // go out in order once the next backfill has filled the new gap.
      const later = ready.slice(this.#splitAt, ready.length - fromHistory.length)
      const waiting = new Set(later.map((n) => n.quoteId))
      const now: Notification[] = []
      this.#held = []
      for (const n of ready) {
        if (!waiting.has(n.quoteId)) now.push(n)
        else {
          this.#held.push(n)
          if (history.has(n)) (this.#carried ??= new Set()).add(n)
        }
      }
      ready = now
      this.#splitAt = undefined
    }
    let recovered = 0
    let stale = 0
    const newest = this.#deliverAll(ready, (n, verdict) => {
      if (!history.has(n)) return
      if (verdict === 'new') {
        recovered++
        onRecovered?.(n)
      } else if (verdict === 'stale') stale++
    })
    return { recovered, stale, newest }
  }

  /**
   * Delivers `list` in `modify_time` order. When the subscriber lets go inside a delivery (a `take(n)`,
   * a `for await` that stops), what is left stays held undelivered, so the position written at the end
   * is not past it (docs/guide/resume.md, "Checkpoints"). Returns the newest plausible `modify_time` delivered.
   */
  #deliverAll(list: Notification[], counted?: (n: Notification, verdict: Verdict) => void): number | undefined {
    const sorted = sortByTime(list)
    let newest: number | undefined
    for (let i = 0; i < sorted.length; i++) {
      if (this.#host.stopped) {
        ;(this.#held ??= []).push(...sorted.slice(i))
        break
      }
      const n = sorted[i]!
      const verdict = this.#deliver(n)
      const t = verdict === 'new' ? timeOf(n) : undefined
      if (t !== undefined && (newest === undefined || t > newest)) newest = t
      counted?.(n, verdict)
    }
    return newest
  }

  /** Delivers `n` unless it is a duplicate or a history row older than its quote's last delivery; returns the verdict ('new': it went out). */
  #deliver(n: Notification): Verdict {
    const d = this.#host.diagnostics
    // A live frame leaves the pipeline now (delivered, or dropped as a duplicate): its delivery ends here if it was held.
    if (d?.active && n.source === 'live') d.emit({ type: 'released', notification: n })
    const plausible = isPlausibleTime(n.modifyTime)
    const seen = (this.#seen ??= new DedupeWindow(this.#host.settings.dedupeWindow))
    const verdict = seen.verdict(n, plausible)
    if (verdict === 'duplicate') {
      this.#host.stats.frames.dropped.duplicate++
      return verdict
    }
    if (verdict === 'stale') {
      this.#host.stats.frames.dropped.stale++
      return verdict
    }
    if (seen.remember(n, plausible)) this.#host.stats.frames.idReused++
    this.#host.emit(n)
    if (!plausible && n.modifyTime !== null) {
      this.#host.report(
        new ServiceError(
          'IMPLAUSIBLE_TIMESTAMP',
          `Quote ${n.quoteId} came with modify_time ${n.modifyTime}, not plausible unix seconds (a day ahead, or milliseconds?): delivered, but it moves neither the resume position nor the quote's order.`,
        ),
      )
    }
    return verdict
  }
}

/** A notification's `modify_time` when plausible (what moves a watermark), else undefined. */
function timeOf(n: Notification): number | undefined {
  return isPlausibleTime(n.modifyTime) ? n.modifyTime : undefined
}

/** Seconds kept below the oldest possible backfill start: rows at a page's boundary second still match. */
const OVERLAP_S = 5

function sortByTime(list: Notification[]): Notification[] {
  // Stable: equal times keep arrival order; frames without a plausible time go last.
  const rank = (n: Notification) => (isPlausibleTime(n.modifyTime) ? n.modifyTime : Number.POSITIVE_INFINITY)
  return list.sort((a, b) => rank(a) - rank(b))
}
