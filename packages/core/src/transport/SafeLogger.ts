import type { Logger } from './Logger.js'
import { backgroundTimer } from './Timers.js'

type Level = 'debug' | 'info' | 'warn' | 'error'

/** Repeated lines of one kind and key are summed up at most this often. */
const REPEAT_WINDOW_MS = 1_000

/**
 * The app's logger as the library calls it: it can never hurt a stream. Every call is guarded (a
 * logger that throws is reported once with `console.warn` and ignored from then on), and lines that
 * repeat (frames dropped, dials of a socket that is down) go out at most once a second per kind and
 * socket, as one line saying how many there were.
 */
export interface SafeLogger {
  log(level: Level, message: string, fields: Record<string, unknown>): void
  /**
   * A line that may come thousands of times: the first goes out at once; the rest within the next
   * second are counted and summed up in one line ("4,999 more: not JSON, last 1.0 s") when the
   * window ends.
   */
  repeated(level: Level, key: string, message: string, fields: Record<string, unknown>): void
  /** Ends a key's window now (its summary goes out): the repetition is over, the next line is news. */
  settle(key: string): void
}

/** Wraps the `logger` option; undefined when there is none (nothing is formatted then). */
export function safeLogger(logger: Logger | undefined): SafeLogger | undefined {
  if (!logger) return undefined
  let broken = false
  const call = (level: Level, message: string, fields: Record<string, unknown>) => {
    if (broken) return
    try {
      logger[level]?.(message, fields)
    } catch (error) {
      broken = true
      try {
        console.warn(`solver-notifications: the logger threw on "${message}" (${(error as Error)?.message ?? String(error)}); it is ignored from now on. Streams are not affected.`)
      } catch {
        // a console that throws too: nothing more to try
      }
    }
  }
  const windows = new Map<string, { since: number; more: number; level: Level; message: string; fields: Record<string, unknown>; cancel: () => void }>()
  const flush = (key: string) => {
    const w = windows.get(key)
    windows.delete(key)
    if (!w) return
    w.cancel()
    if (w.more === 0) return
    const seconds = ((Date.now() - w.since) / 1000).toFixed(1)
    call(w.level, `${w.message}: ${w.more.toLocaleString('en-US')} more, last ${seconds} s`, { ...w.fields, repeated: w.more })
  }
  return {
    log: call,
    settle: flush,
    repeated(level, key, message, fields) {
      if (broken) return
      const open = windows.get(key)
      if (open) {
        open.more++
        open.fields = fields
        return
      }
      call(level, message, fields)
      // Outside the client's timers: it never keeps a process alive nor shows among them.
      windows.set(key, { since: Date.now(), more: 0, level, message, fields, cancel: backgroundTimer(() => flush(key), REPEAT_WINDOW_MS) })
    },
  }
}
