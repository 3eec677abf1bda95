/**
 * Bounds how many dials are in flight at once, so 10,000 enigma sockets open in waves instead of a
 * stampede that overflows the server's accept queue and turns into timeouts and retries. A slot is
 * held from the handshake (after the URL, and any `auth.socketUrl`, is known) until the socket opens or
 * fails. Waiters are served in order.
 */
export class DialGate {
  #active = 0
  readonly #waiting = new Set<() => void>()

  readonly #limit: number

  constructor(limit: number) {
    this.#limit = limit
  }

  /** Takes a slot now if one is free. */
  tryEnter(): boolean {
    if (this.#active >= this.#limit) return false
    this.#active++
    return true
  }

  /** Queues `start`, called (holding a slot) when one frees up; returns the cancel function. */
  wait(start: () => void): () => void {
    this.#waiting.add(start)
    return () => {
      this.#waiting.delete(start)
    }
  }

  /** Gives a slot back; the oldest waiter takes it. */
  leave(): void {
    this.#active--
    for (const next of this.#waiting) {
      this.#waiting.delete(next)
      this.#active++
      next()
      return
    }
  }

  get queued(): number {
    return this.#waiting.size
  }
}
