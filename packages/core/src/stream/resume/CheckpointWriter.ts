import { ServiceError } from '../../errors/ServiceError.js'
import type { Timers } from '../../transport/Timers.js'
import { isPlausiblePosition } from '../../utils/plausibleTime.js'
import type { CheckpointStore } from './CheckpointStore.js'

/** Checkpoints are written at most this often while the position moves (and when the stream ends). */
const CHECKPOINT_EVERY_MS = 1_000

/**
 * A resume stream's checkpoint: reads the stored position (sync or async, with a deadline, refusing
 * an implausible one), and writes the position at most once a second and at the end, never one that
 * could not be read back. Every failure is an error the stream reports.
 */
export class CheckpointWriter {
  #timer: ReturnType<typeof setTimeout> | undefined
  #written: number | undefined
  #disposed = false

  readonly #store: CheckpointStore
  readonly #key: string
  readonly #timers: Timers
  readonly #timeoutMs: number
  /** where the stream resumes from now, or undefined when it delivered nothing yet (nothing to write) */
  readonly #position: () => number | undefined
  readonly #report: (error: ServiceError) => void

  constructor(
    store: CheckpointStore,
    key: string,
    timers: Timers,
    timeoutMs: number,
    position: () => number | undefined,
    report: (error: ServiceError) => void) {
    this.#store = store
    this.#key = key
    this.#timers = timers
    this.#timeoutMs = timeoutMs
    this.#position = position
    this.#report = report
  }

  /**
   * Reads the stored position: `done(since)` with a plausible position, or `done(undefined)` (none,
   * implausible, failed, too slow: each reported). Returns true when the answer comes later.
   */
  read(done: (since: number | undefined) => void): boolean {
    let value: unknown
    try {
      value = this.#store.get(this.#key)
    } catch (cause) {
      this.#failed('read', cause)
      done(undefined)
      return false
    }
    if (!(value instanceof Promise)) {
      done(this.#usable(value))
      return false
    }
    let settled = false
    // A store that never answers must not hold live frames for ever: it gets the search deadline.
    const deadline = this.#timers.set(() => {
      settled = true
      if (this.#disposed) return
      this.#failed('read', new Error(`no answer within ${this.#timeoutMs} ms`))
      done(undefined)
    }, this.#timeoutMs)
    value.then(
      (since: unknown) => {
        if (settled) return
        settled = true
        this.#timers.clear(deadline)
        if (!this.#disposed) done(this.#usable(since))
      },
      (cause: unknown) => {
        if (settled) return
        settled = true
        this.#timers.clear(deadline)
        if (this.#disposed) return
        this.#failed('read', cause)
        done(undefined)
      },
    )
    return true
  }

  /** The position moved: written within a second. */
  schedule(): void {
    if (this.#timer !== undefined || this.#disposed) return
    this.#timer = this.#timers.set(() => {
      this.#timer = undefined
      this.write()
    }, CHECKPOINT_EVERY_MS)
  }

  /** Writes the current position now (when it changed and is plausible). */
  write(): void {
    this.#timer = this.#timers.clear(this.#timer)
    const position = this.#position()
    // Never write back what could not be read back.
    if (position === undefined || this.#written === position || !isPlausiblePosition(position)) return
    this.#written = position
    try {
      const result = this.#store.set(this.#key, position)
      if (result instanceof Promise) result.catch((cause: unknown) => this.#failed('write', cause))
    } catch (cause) {
      this.#failed('write', cause)
    }
  }

  /** The stream ended: the last position is written, nothing is read or reported afterwards. */
  dispose(): void {
    if (this.#disposed) return
    this.write()
    this.#disposed = true
  }

  #usable(value: unknown): number | undefined {
    if (value === undefined || value === null) return undefined
    if (isPlausiblePosition(value)) return value
    this.#report(
      new ServiceError(
        'INVALID_CHECKPOINT',
        `The resume checkpoint "${this.#key}" holds ${typeof value === 'number' || typeof value === 'string' ? JSON.stringify(value) : typeof value}, not unix seconds (milliseconds? a clock ahead?): ignored, the stream starts from now, and it is overwritten once a position is delivered.`,
      ),
    )
    return undefined
  }

  #failed(what: 'read' | 'write', cause: unknown): void {
    if (this.#disposed && what === 'read') return
    this.#report(
      new ServiceError(
        'CHECKPOINT',
        `Could not ${what} the resume checkpoint "${this.#key}": ${(cause as Error)?.message ?? String(cause)}. ${what === 'read' ? 'The stream starts from now.' : 'A reload may backfill from an older position.'}`,
        { cause },
      ),
    )
  }
}
