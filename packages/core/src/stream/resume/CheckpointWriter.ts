import { ServiceError } from '../../errors/ServiceError.js'
import type { Timers } from '../../transport/Timers.js'
import { isPlausiblePosition } from '../../utils/plausibleTime.js'
import type { CheckpointStore } from './CheckpointStore.js'

/** Checkpoints are written at most this often while the position moves (and when the stream ends). */
export const CHECKPOINT_EVERY_MS = 1_000

/**
 * A resume stream's checkpoint, read and written: the stored position read (sync or async, with a
 * deadline, refusing an implausible one) and positions written, never one that could not be read
 * back; every failure is an error the stream reports. The stream keeps the little state there is
 * (the value written last, the pending write: at most one a second, and one at the end), so an idle
 * stream holds no object for its checkpoint (thousands of streams on a relay).
 *
 * @example
 * readCheckpoint(store, key, timers, 10_000, () => ended, report, (since) => start(since))
 */
export function readCheckpoint(
  store: CheckpointStore,
  key: string,
  timers: Timers,
  timeoutMs: number,
  /** the stream ended: an answer after that is dropped, a failure not reported */
  ended: () => boolean,
  report: (error: ServiceError) => void,
  done: (since: number | undefined) => void,
): boolean {
  let value: unknown
  try {
    value = store.get(key)
  } catch (cause) {
    report(failure(key, 'read', cause))
    done(undefined)
    return false
  }
  if (!(value instanceof Promise)) {
    done(usable(key, value, report))
    return false
  }
  let settled = false
  // A store that never answers must not hold live frames for ever: it gets the search deadline.
  const deadline = timers.set(() => {
    settled = true
    if (ended()) return
    report(failure(key, 'read', new Error(`no answer within ${timeoutMs} ms`)))
    done(undefined)
  }, timeoutMs)
  value.then(
    (since: unknown) => {
      if (settled) return
      settled = true
      timers.clear(deadline)
      if (!ended()) done(usable(key, since, report))
    },
    (cause: unknown) => {
      if (settled) return
      settled = true
      timers.clear(deadline)
      if (ended()) return
      report(failure(key, 'read', cause))
      done(undefined)
    },
  )
  return true
}

/**
 * Writes `position` (the caller checked it moved); a plausible one only. Returns whether it was
 * written (a failure is reported, also after the stream ended: the store did not keep the last position).
 *
 * @example
 * if (writeCheckpoint(store, key, position, report)) written = position
 */
export function writeCheckpoint(store: CheckpointStore, key: string, position: number, report: (error: ServiceError) => void): boolean {
  // Never write back what could not be read back.
  if (!isPlausiblePosition(position)) return false
  try {
    const result = store.set(key, position)
    if (result instanceof Promise) result.catch((cause: unknown) => report(failure(key, 'write', cause)))
  } catch (cause) {
    report(failure(key, 'write', cause))
  }
  return true
}

function usable(key: string, value: unknown, report: (error: ServiceError) => void): number | undefined {
  if (value === undefined || value === null) return undefined
  if (isPlausiblePosition(value)) return value
  report(
    new ServiceError(
      'INVALID_CHECKPOINT',
      `The resume checkpoint "${key}" holds ${typeof value === 'number' || typeof value === 'string' ? JSON.stringify(value) : typeof value}, not unix seconds (milliseconds? a clock ahead?): ignored, the stream starts from now, and it is overwritten once a position is delivered.`,
    ),
  )
  return undefined
}

function failure(key: string, what: 'read' | 'write', cause: unknown): ServiceError {
  return new ServiceError(
    'CHECKPOINT',
    `Could not ${what} the resume checkpoint "${key}": ${(cause as Error)?.message ?? String(cause)}. ${what === 'read' ? 'The stream starts from now.' : 'A reload may backfill from an older position.'}`,
    { cause },
  )
}
