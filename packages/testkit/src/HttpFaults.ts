/**
 * A fault the simulator applies to its next HTTP responses.
 *
 * @example
 * sim.injectHttpFault({ times: 2, status: 503, retryAfterSeconds: 0 })
 */
export interface HttpFault {
  /** How many responses it applies to (default 1). */
  times?: number
  /** Answer with this status (and `body`) instead of the real response. */
  status?: number
  body?: unknown
  /** Sets `Retry-After` (seconds) on the faulty response. */
  retryAfterSeconds?: number
  /** Wait this long before answering (then answer normally unless `status` or `destroy` is set). */
  delayMs?: number
  /** Destroy the connection without answering: a network error for the client. */
  destroy?: boolean
  /** Answer 200 with this text as the body (e.g. not JSON, or JSON of the wrong shape). */
  rawBody?: string
  /** Send the real response's headers at once, then its body in small pieces spread over this long. */
  trickleMs?: number
}

/**
 * Answers held back: each request is answered with history as it stood when the request arrived, and
 * the answer is sent only on {@link HttpHold.release} (a service that reads fast and answers slowly).
 *
 * @example
 * const hold = sim.holdHttpAnswers()
 * await hold.held(1) // a history request arrived and was read
 * await sim.publish(frame) // stored after that read: not in its answer
 * hold.release()
 */
export interface HttpHold {
  /** Resolves once `count` answers are held (counted since the hold began). */
  held(count?: number): Promise<void>
  /** Sends every held answer, and stops holding. */
  release(): void
}

/** What the next fault does to a response: none, destroy it, answer instead, or trickle the real answer. */
export type FaultOutcome = undefined | { destroy: true } | { status: number; headers: Record<string, string>; body: string } | { trickleMs: number }

/** Queue of injected faults, consumed one response at a time, and held answers; no transport in it. */
export class HttpFaults {
  private readonly queue: Array<HttpFault & { left: number }> = []
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()
  private holding: { count: number; waiters: Array<{ count: number; resolve: () => void }>; sends: Array<() => void> } | undefined

  /** Starts holding answers back (see {@link HttpHold}); a hold already on is returned again. */
  hold(): HttpHold {
    const holding = (this.holding ??= { count: 0, waiters: [], sends: [] })
    return {
      held: (count = 1) => (holding.count >= count ? Promise.resolve() : new Promise((resolve) => holding.waiters.push({ count, resolve }))),
      release: () => {
        if (this.holding === holding) this.holding = undefined
        for (const send of holding.sends.splice(0)) send()
      },
    }
  }

  /** Sends `send` now, or keeps it for the hold's release. */
  answer(send: () => void): void {
    const holding = this.holding
    if (!holding) {
      send()
      return
    }
    holding.sends.push(send)
    holding.count++
    for (const waiter of holding.waiters.filter((w) => holding.count >= w.count)) {
      holding.waiters.splice(holding.waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }

  add(fault: HttpFault): void {
    this.queue.push({ ...fault, left: fault.times ?? 1 })
  }

  clear(): void {
    this.holding?.sends.splice(0)
    this.holding = undefined
    this.queue.length = 0
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }

  /**
   * The next fault's outcome, after its delay: the connection destroyed, an answer instead of the
   * real one, or the real answer trickled; undefined when no fault is pending (or it only delayed).
   */
  async next(): Promise<FaultOutcome> {
    const fault = this.queue[0]
    if (!fault) return undefined
    if (--fault.left <= 0) this.queue.shift()
    if (fault.delayMs) await this.sleep(fault.delayMs)
    if (fault.destroy) return { destroy: true }
    if (fault.rawBody !== undefined) return { status: 200, headers: { 'content-type': 'application/json' }, body: fault.rawBody }
    if (fault.status !== undefined) {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds)
      return { status: fault.status, headers, body: JSON.stringify(fault.body ?? { error: `injected ${fault.status}` }) }
    }
    if (fault.trickleMs) return { trickleMs: fault.trickleMs }
    return undefined
  }

  /** Hands `text` to `write` in 20 pieces spread over `ms`, then calls `end` (stops early once `gone()`). */
  trickle(text: string, ms: number, write: (piece: string) => void, end: () => void, gone: () => boolean): void {
    const pieces = 20
    const size = Math.ceil(text.length / pieces)
    let sent = 0
    const next = () => {
      if (gone()) return
      write(text.slice(sent, sent + size))
      sent += size
      if (sent >= text.length) {
        end()
        return
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer)
        next()
      }, ms / pieces)
      this.timers.add(timer)
    }
    next()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer)
        resolve()
      }, ms)
      this.timers.add(timer)
    })
  }
}
