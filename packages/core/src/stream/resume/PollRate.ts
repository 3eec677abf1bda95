/**
 * The resume streams of one solver endpoint that are polling history now, each with its interval, and
 * the polls per millisecond they ask for together: the history gate spaces polls by it (HistoryGate).
 */
export class PollRate {
  private readonly intervals = new Map<object, number>()
  /** polls per millisecond the streams polling now ask for, summed */
  rate = 0

  /** A stream started polling every `intervalMs`, or stopped (`undefined`). */
  polling(stream: object, intervalMs: number | undefined): void {
    const had = this.intervals.get(stream)
    if (had === intervalMs) return
    if (had !== undefined) this.rate -= 1 / had
    if (intervalMs === undefined) this.intervals.delete(stream)
    else {
      this.intervals.set(stream, intervalMs)
      this.rate += 1 / intervalMs
    }
    // No drift from adding and taking away fractions: none polling is exactly none.
    if (this.intervals.size === 0) this.rate = 0
  }
}
