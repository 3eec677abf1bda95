import type { SimConnection, SimSocket } from '../SimulatorCore.js'
import { simulatorAt } from './memoryHosts.js'

type Listener = (event: never) => void

/**
 * A WHATWG-style WebSocket that reaches in-memory simulators (`startMemorySimulator`) by the host of
 * its URL, with no network and no port: pass it as the client's `WebSocket` option. Every step is
 * asynchronous, as over a network: the open, each frame either way, and the close. Like a browser
 * socket it has no protocol pings.
 *
 * @example
 * const sim = await startMemorySimulator({ protocol: 'rasa' })
 * const client = createNotificationsClient({ config, WebSocket: MemoryWebSocket, search: { fetch: memoryFetch } })
 */
export class MemoryWebSocket {
  static readonly CONNECTING = 0
  static readonly OPEN = 1
  static readonly CLOSING = 2
  static readonly CLOSED = 3
  readonly CONNECTING = 0
  readonly OPEN = 1
  readonly CLOSING = 2
  readonly CLOSED = 3
  readonly url: string
  readyState = 0
  binaryType = 'blob'
  readonly protocol = ''
  readonly extensions = ''
  // Typed as loosely as a client's WebSocket option expects them (the events carry `type`, and
  // `data`, `code`, `reason`, `wasClean` or `message` as a browser's do).
  onopen: ((event: unknown) => void) | null = null
  onmessage: ((event: { data: unknown }) => void) | null = null
  onclose: ((event: { code?: number; reason?: string }) => void) | null = null
  onerror: ((event: unknown) => void) | null = null
  readonly #listeners = new Map<string, Set<Listener>>()
  #server: SimConnection | undefined

  constructor(url: string | URL) {
    this.url = String(url)
    later(() => this.#dial())
  }

  addEventListener(type: string, listener: Listener): void {
    let set = this.#listeners.get(type)
    if (!set) this.#listeners.set(type, (set = new Set()))
    set.add(listener)
  }

  removeEventListener(type: string, listener: Listener): void {
    this.#listeners.get(type)?.delete(listener)
  }

  /** Sends a text frame to the simulator (after the current task, as a network would). */
  send(data: string): void {
    if (this.readyState === 0) throw new Error('MemoryWebSocket: send() before the socket opened (readyState CONNECTING)')
    if (this.readyState !== 1) return
    const server = this.#server
    later(() => server?.message(typeof data === 'string' ? data : ''))
  }

  /** Closes the socket: the simulator sees the code, then this socket's `close` event fires. */
  close(code = 1000, reason = ''): void {
    if (this.readyState === 2 || this.readyState === 3) return
    if (this.readyState === 0) {
      this.readyState = 3
      later(() => this.#closed(1006, '', false))
      return
    }
    this.readyState = 2
    later(() => {
      this.#server?.closed(code)
      this.#closed(code, reason, true)
    })
  }

  #emit(type: 'open' | 'message' | 'close' | 'error', event: Record<string, unknown>): void {
    const handler = this[`on${type}` as const] as ((e: unknown) => void) | null
    const e = { type, target: this, ...event }
    // As in a browser, a handler that throws is reported and the other handlers still run.
    for (const run of [handler, ...(this.#listeners.get(type) ?? [])] as Array<((e: unknown) => void) | null>) {
      try {
        run?.(e)
      } catch (error) {
        setTimeout(() => {
          throw error
        }, 0)
      }
    }
  }

  #closed(code: number, reason: string, wasClean: boolean): void {
    this.readyState = 3
    this.#server = undefined
    this.#emit('close', { code, reason, wasClean })
  }

  #dial(): void {
    if (this.readyState !== 0) return
    let url: URL
    try {
      url = new URL(this.url)
    } catch {
      this.#refused(`not a URL: ${this.url}`)
      return
    }
    const core = simulatorAt(url.host)
    if (!core) {
      this.#refused(`no in-memory simulator at ${url.host} (started with startMemorySimulator, and not closed?)`)
      return
    }
    const verdict = core.upgrade(url.pathname + url.search, { host: url.host })
    if ('refuse' in verdict) {
      this.#refused(`the simulator refused the upgrade with HTTP ${verdict.refuse}`)
      return
    }
    this.#server = core.accept(this.#socketForServer(), verdict.path, verdict.token)
    this.readyState = 1
    this.#emit('open', {})
  }

  #refused(message: string): void {
    this.#emit('error', { message })
    this.#closed(1006, '', false)
  }

  /**
   * The simulator's end of this socket. Its promises settle once the step is on the way (as a TCP
   * write settles once written), not when the client has seen it: a test under fake timers awaits
   * `publish` or `dropAll` before it advances the clock, so waiting for the client's (faked) clock here
   * would deadlock it (Jest's default fake timers, docs/guide/testing.md).
   */
  #socketForServer(): SimSocket {
    // Frames sent before the close reach the client before it (one FIFO of steps); none after it.
    let closing = false
    const closedFromServer = (code: number, reason: string, clean: boolean) => {
      if (closing || this.readyState === 3 || this.readyState === 2) return Promise.resolve()
      closing = true
      later(() => {
        if (this.readyState === 3) return
        this.readyState = 2
        this.#server?.closed(clean ? code : 1006)
        this.#closed(clean ? code : 1006, clean ? reason : '', clean)
      })
      return Promise.resolve()
    }
    return {
      send: (text) => {
        if (this.readyState === 1 && !closing) later(() => this.readyState === 1 && this.#emit('message', { data: text }))
        return Promise.resolve()
      },
      close: (code, reason) => closedFromServer(code, reason, true),
      terminate: () => closedFromServer(1006, '', false),
    }
  }
}

/** After the current task: a macrotask, so timers and I/O interleave with frames as over a network. */
function later(step: () => void): void {
  setTimeout(step, 0)
}
