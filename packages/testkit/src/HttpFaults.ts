import type { IncomingMessage, ServerResponse } from 'node:http'

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

/** Queue of injected faults, consumed one response at a time. */
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

export class HttpFaults {
  private readonly queue: Array<HttpFault & { left: number }> = []
  private readonly timers = new Set<NodeJS.Timeout>()
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
   * Applies the next fault; returns true when the response was fully handled by it, or a trickle
   * duration the real response is then sent with.
   */
  async apply(req: IncomingMessage, res: ServerResponse): Promise<boolean | { trickleMs: number }> {
    const fault = this.queue[0]
    if (!fault) return false
    if (--fault.left <= 0) this.queue.shift()
    if (fault.delayMs) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer)
          resolve()
        }, fault.delayMs)
        this.timers.add(timer)
      })
    }
    if (fault.destroy) {
      req.socket.destroy()
      return true
    }
    if (fault.rawBody !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(fault.rawBody)
      return true
    }
    if (fault.status !== undefined) {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds)
      res.writeHead(fault.status, headers).end(JSON.stringify(fault.body ?? { error: `injected ${fault.status}` }))
      return true
    }
    if (fault.trickleMs) return { trickleMs: fault.trickleMs }
    return false
  }

  /** Writes `text` in 20 pieces spread over `ms`, after the headers (which go at once). */
  trickle(res: ServerResponse, status: number, text: string, ms: number): void {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.flushHeaders()
    const pieces = 20
    const size = Math.ceil(text.length / pieces)
    let sent = 0
    const next = () => {
      if (res.destroyed) return
      res.write(text.slice(sent, sent + size))
      sent += size
      if (sent >= text.length) {
        res.end()
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
}
