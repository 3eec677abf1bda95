import type { Notification } from '../protocol/types.js'
import type { TransportStatusEvent } from './TransportEvent.js'

/**
 * What a client does, as its diagnostics seam publishes it (`client.diagnostics`): what an
 * OpenTelemetry bridge (`@solver-notifications/otel`), devtools or a test turns into metrics, spans and
 * views. Times are milliseconds of `now()` (monotonic); ids pair a `start` with its `end`. URLs are
 * redacted (`***`), as in errors. Core emits facts; durations are the listener's to compute.
 *
 * @example
 * const stop = client.diagnostics.subscribe((e) => { if (e.type === 'delivered') latency.record(e.durationMs) })
 */
export type DiagnosticEvent =
  /** a socket's status changed (`socket` tells sockets apart): a dial is `connecting`, then `open`, or `reconnecting`/`closed` */
  | {
      readonly type: 'socket'
      readonly socket: number
      readonly protocol: string
      readonly url: string
      /** `<chainId>.<solverId>` of the solver the socket serves: low-cardinality, never an account */
      readonly destination: string
      readonly event: TransportStatusEvent
    }
  /** a protocol ping answered (Node `ws`), round trip */
  | { readonly type: 'heartbeat'; readonly protocol: string; readonly rttMs: number }
  /**
   * a live frame given to its subscribers (once per frame, however many; `at`: when it arrived). When a
   * resume stream held it behind a backfill, `held` came during that dispatch and `released` comes when
   * it leaves the stream: its delivery ends then (the first `released` counts).
   */
  | { readonly type: 'frame'; readonly notification: Notification; readonly at: number }
  | { readonly type: 'held' | 'released'; readonly notification: Notification }
  /** a notification a backfill or poll recovered, given to the stream's subscriber (`readAt`: when history answered) */
  | { readonly type: 'recovered'; readonly notification: Notification; readonly source: 'backfill' | 'poll'; readonly readAt: number }
  /** a resume stream's continuity changed (docs/guide/continuity.md); `instance` as in `backfill` (its end is `streamEnd`) */
  | { readonly type: 'continuity'; readonly instance: object; readonly state: 'complete' | 'catching-up' | 'incomplete' }
  /** a verification found notifications the open socket never brought (docs/guide/continuity.md) */
  | { readonly type: 'silentLoss'; readonly protocol: string; readonly destination: string; readonly count: number }
  /** a resume stream's backfill (or poll) starts */
  | {
      readonly type: 'backfill'
      readonly phase: 'start'
      readonly id: number
      readonly protocol: string
      /** `<chainId>.<solverId>` */
      readonly destination: string
      readonly stream: string
      /** the stream instance, an opaque identity (a stream of the same account subscribed again is another) */
      readonly instance: object
      readonly since: number
      readonly poll: boolean
    }
  /** how it ended (`aborted`: the stream ended first; `whole`: no gap left and the socket open) */
  | {
      readonly type: 'backfill'
      readonly phase: 'end'
      readonly id: number
      readonly outcome: 'finished' | 'truncated' | 'failed' | 'aborted'
      readonly rows: number
      readonly pages: number
      readonly recovered: number
      readonly whole: boolean
      readonly errorCode?: string | undefined
    }
  /**
   * a resume stream's socket went down (its gap opened; the `backfill` end that says `whole` closes it).
   * `stream` names the stream (its checkpoint key: an account, so never a metric attribute).
   */
  | { readonly type: 'gap'; readonly protocol: string; readonly stream: string; readonly instance: object }
  /** a resume stream ended (released): a gap it left open closes with it, unmeasured (`instance` as in its `gap`) */
  | { readonly type: 'streamEnd'; readonly instance: object }
  /**
   * a history search the app asked for (`client.search`, one `searchPages` walk) starts, and how it ended
   * (`errorCode`: the `ServiceError` code; `status`: the HTTP status when there was one)
   */
  | { readonly type: 'search'; readonly phase: 'start'; readonly id: number; readonly protocol: string; readonly destination: string; readonly url: string }
  | { readonly type: 'search'; readonly phase: 'end'; readonly id: number; readonly outcome: 'ok' | 'failed'; readonly errorCode?: string | undefined; readonly status?: number | undefined }
  /** a history request leaves the endpoint's gate: started, or failed waiting (`expired`) */
  | { readonly type: 'gate'; readonly waitedMs: number; readonly outcome: 'started' | 'expired' }
  /** a `waitFor` call starts, and how it ended */
  | { readonly type: 'waitFor'; readonly phase: 'start'; readonly id: number; readonly protocol: string; readonly destination: string }
  | { readonly type: 'waitFor'; readonly phase: 'end'; readonly id: number; readonly outcome: 'reached' | 'timeout' | 'aborted' | 'failed'; readonly errorCode?: string | undefined }
  /** cross-tab: this tab's role changed */
  | { readonly type: 'role'; readonly role: 'leader' | 'follower' }
  /** an `error` event a stream heard (once per occurrence, not per subscriber) */
  | {
      readonly type: 'error'
      readonly code: string
      readonly protocol?: string | undefined
      /** the socket it happened on (its `socket` events' id), for transport errors */
      readonly socket?: number | undefined
      /** the failure underneath, as the runtime gave it (Node's carries a `code`: `ECONNREFUSED`, `ENOTFOUND`, a TLS code) */
      readonly cause?: unknown
    }

/**
 * The diagnostics seam of one client (`client.diagnostics`): listeners get every {@link DiagnosticEvent}.
 * Free when unused: nothing is computed, timed or allocated for it while nobody listens (every emitting
 * place checks `active` first). A listener that throws is ignored.
 *
 * @example
 * const unsubscribe = client.diagnostics.subscribe((event) => console.log(event.type))
 */
export class Diagnostics {
  /** whether anybody listens: emitting places check it before building an event */
  active = false
  #listeners: Array<(event: DiagnosticEvent) => void> = []
  #ids = 0

  /** Listens to every event; returns the function that stops it. */
  subscribe(listener: (event: DiagnosticEvent) => void): () => void {
    this.#listeners = [...this.#listeners, listener]
    this.active = true
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener)
      this.active = this.#listeners.length > 0
    }
  }

  /** A fresh id (pairs a start with its end, tells sockets apart). */
  id(): number {
    return ++this.#ids
  }

  emit(event: DiagnosticEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event)
      } catch {
        // A listener's failure never reaches the stream that emitted.
      }
    }
  }
}

/** The clock diagnostics time with: monotonic where the runtime has one. */
export const now: () => number = typeof performance === 'object' && typeof performance.now === 'function' ? () => performance.now() : () => Date.now()
