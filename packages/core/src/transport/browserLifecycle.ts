import type { Lifecycle, LifecycleEvent } from './Lifecycle.js'
import { backgroundTimer } from './Timers.js'

interface BrowserGlobals {
  addEventListener?: (type: string, listener: (event: unknown) => void) => void
  removeEventListener?: (type: string, listener: (event: unknown) => void) => void
  document?: {
    visibilityState?: string
    addEventListener?: (type: string, listener: (event: unknown) => void) => void
    removeEventListener?: (type: string, listener: (event: unknown) => void) => void
  }
}

/**
 * The default lifecycle in browsers: `visibilitychange` (foreground/background), `online`/`offline`,
 * `freeze` (background) and `resume` / a `pageshow` from the back-forward cache (wake), plus a timer
 * that notices when it fired far later than set (the machine slept: wake). Workers get the network
 * events and the timer. Undefined where the global scope has no `addEventListener` (Node, React
 * Native): those hosts inject their own.
 *
 * @example
 * createNotificationsClient({ config, lifecycle: browserLifecycle({ driftCheckMs: 5_000 }) })
 */
export function browserLifecycle(options: { driftCheckMs?: number; driftToleranceMs?: number } = {}): Lifecycle | undefined {
  const g = globalThis as BrowserGlobals
  const doc = g.document
  if (typeof g.addEventListener !== 'function') return undefined
  const checkMs = options.driftCheckMs ?? 10_000
  const toleranceMs = options.driftToleranceMs ?? 10_000
  return {
    subscribe(listener) {
      const emit = (event: LifecycleEvent) => () => listener(event)
      const handlers: Array<[BrowserGlobals['document'] | BrowserGlobals, string, (event: unknown) => void]> = [
        [g, 'online', emit('online')],
        [g, 'offline', emit('offline')],
        [g, 'pageshow', (event) => (event as { persisted?: boolean })?.persisted && listener('wake')],
        [doc, 'visibilitychange', () => listener(doc?.visibilityState === 'hidden' ? 'background' : 'foreground')],
        [doc, 'freeze', emit('background')],
        [doc, 'resume', emit('wake')],
      ]
      for (const [target, type, handler] of handlers) target?.addEventListener?.(type, handler)
      // Timers stop while a machine sleeps: one that fires far later than set means it slept (the wall
      // clock, which a sleep moves on, where a monotonic one may not).
      let last = Date.now()
      let cancel: () => void
      const tick = () => {
        const now = Date.now()
        if (now - last > checkMs + toleranceMs) listener('wake')
        last = now
        cancel = backgroundTimer(tick, checkMs)
      }
      cancel = backgroundTimer(tick, checkMs)
      return () => {
        cancel()
        for (const [target, type, handler] of handlers) target?.removeEventListener?.(type, handler)
      }
    },
  }
}
