import { BadRequest } from './BadRequest.js'
import { HttpFaults } from './HttpFaults.js'
import { Lifecycles } from './Lifecycles.js'
import type { StoredDocument } from './protocols/EnigmaHistory.js'
import type { SimulatorProtocolModule } from './protocols/SimulatorProtocolModule.js'
import { simulatorProtocols } from './protocols/index.js'
import type { SolverSimulator, SolverSimulatorOptions } from './SolverSimulator.js'
import type { ConnectionRecord, SubscriptionRecord } from './types.js'

/** One accepted socket as its transport (real `ws`, or in memory) drives it. */
export interface SimSocket {
  /** Resolves once the text is written (at once when the socket is no longer open). */
  send(text: string): Promise<void>
  /** Closes with a close frame; resolves once closed. */
  close(code: number, reason: string): Promise<void>
  /** Drops without a close frame; resolves once closed. */
  terminate(): Promise<void>
}

/** What a transport tells the core about one socket it accepted. */
export interface SimConnection {
  /** A text frame from the client (binary frames arrive as ''). */
  message(text: string): void
  /** The socket closed with this code. */
  closed(code: number): void
  /** Whether a ping is answered (a stalled simulator answers none). */
  answersPings(): boolean
}

/** One HTTP request as its transport read it (the body as text; `tooLarge` past 1 MiB). */
export interface SimRequest {
  method: string
  /** path and query */
  url: string
  headers: Record<string, string | string[] | undefined>
  body: string
  tooLarge?: boolean
}

/** The answer to a {@link SimRequest}: a response (sent piece by piece over `trickleMs` when set), or the connection destroyed. */
export type SimAnswer = { destroy: true } | { status: number; headers: Record<string, string>; body: string; trickleMs?: number }

/** The largest request body and socket frame the simulator reads. */
export const MAX_BODY_BYTES = 1 << 20

interface Connection {
  record: ConnectionRecord
  socket: SimSocket
  /** the token its URL carried (with `auth`) */
  token: string | null
  /** lowercase accounts watched, as the protocol's subscribe frames say */
  accounts: Set<string>
  /** the protocol's own state of this socket */
  state: unknown
}

/** The part of a {@link SolverSimulator} that does not depend on how it is reached (its URLs and `close`). */
export type SimulatorBehaviour = Omit<SolverSimulator, 'wsUrl' | 'httpUrl' | 'searchUrl' | 'close'>

/**
 * A solver simulator without a transport: sockets, subscriptions, publishing, history, faults and
 * lifecycles. `startSolverSimulator` serves it over real HTTP and WebSocket on a loopback port,
 * `startMemorySimulator` in memory; both are this one behaviour.
 */
export class SimulatorCore {
  readonly module: SimulatorProtocolModule
  readonly channel: string
  readonly faults = new HttpFaults()
  readonly #options: SolverSimulatorOptions
  readonly #speaks: ReturnType<SimulatorProtocolModule['create']>
  readonly #recordLimit: number
  readonly #requests: Array<{ method: string; url: string; body: unknown }> = []
  readonly #connections = new Map<number, Connection>()
  /** lowercase account → the sockets watching it: publishing is one lookup, not a scan of every socket */
  readonly #watchers = new Map<string, Set<Connection>>()
  readonly #subscriberWaiters = new Set<{ account: string; count: number; resolve: () => void }>()
  readonly #subscriptions: SubscriptionRecord[] = []
  readonly #headersSeen: Array<Record<string, string | string[] | undefined>> = []
  readonly #lifecycles: Lifecycles
  #nextConnectionId = 1
  #stalled = false
  #refusing = false
  #token: string | undefined

  constructor(options: SolverSimulatorOptions) {
    const { protocol } = options
    const module = Object.hasOwn(simulatorProtocols, String(protocol)) ? simulatorProtocols[protocol] : undefined
    if (!module) throw new Error(`protocol must be one of ${Object.keys(simulatorProtocols).map((p) => JSON.stringify(p)).join(', ')}, got ${JSON.stringify(protocol)}`)
    const recordLimit = options.recordLimit ?? 10_000
    if (!Number.isInteger(recordLimit) || recordLimit < 0) throw new Error(`recordLimit must be a whole number of entries (0 keeps none), got ${String(options.recordLimit)}`)
    this.module = module
    this.channel = options.channel ?? 'Simulator_Channel'
    this.#options = options
    this.#recordLimit = recordLimit
    this.#token = options.auth?.token
    this.#speaks = module.create({ channel: this.channel, options: options as unknown as Record<string, unknown> })
    this.#lifecycles = new Lifecycles(module, (frame) => this.publish(frame), options.clockStart, options.clock)
  }

  /** Appends to an inspection log, dropping the oldest beyond the limit. */
  #keep<T>(log: T[], entry: T): void {
    if (this.#recordLimit === 0) return
    log.push(entry)
    if (log.length > this.#recordLimit) log.splice(0, log.length - this.#recordLimit)
  }

  /** Whether a socket upgrade to `url` (path and query) is accepted: the HTTP status of a refusal, or the path and token. */
  upgrade(url: string, headers: Record<string, string | string[] | undefined>): { refuse: 401 | 404 | 503 } | { path: string; token: string | null } {
    this.#keep(this.#headersSeen, { ...headers })
    const parsed = new URL(url, 'http://x')
    if (parsed.pathname !== this.module.wsPath) return { refuse: 404 }
    if (this.#refusing) return { refuse: 503 }
    const given = parsed.searchParams.get('token')
    if (this.#token !== undefined && given !== this.#token) return { refuse: 401 }
    return { path: parsed.pathname, token: given }
  }

  /** Registers a socket its transport accepted; the transport reports its frames and its close. */
  accept(socket: SimSocket, path: string, token: string | null): SimConnection {
    const record: ConnectionRecord = { id: this.#nextConnectionId++, path, open: true, accounts: [], received: [] }
    const connection: Connection = { record, socket, token, accounts: new Set(), state: this.#speaks.newSocket() }
    this.#connections.set(record.id, connection)
    return {
      message: (text) => {
        if (!record.open) return
        this.#keep(record.received, text)
        this.#onSubscribe(connection, text)
      },
      closed: (code) => {
        if (!record.open) return
        record.open = false
        record.closeCode = code
        this.#connections.delete(record.id)
        this.#watch(connection, new Set())
      },
      answersPings: () => !this.#stalled,
    }
  }

  #onSubscribe(connection: Connection, text: string): void {
    let frame: unknown = text
    try {
      frame = JSON.parse(text)
    } catch {
      /* recorded as given */
    }
    const next = this.#speaks.subscribe(connection.state, frame, connection.accounts)
    if (next) this.#watch(connection, next)
    this.#keep(this.#subscriptions, { connectionId: connection.record.id, frame, valid: next !== undefined })
    for (const waiter of this.#subscriberWaiters) {
      if ((this.#watchers.get(waiter.account)?.size ?? 0) >= waiter.count) {
        this.#subscriberWaiters.delete(waiter)
        waiter.resolve()
      }
    }
  }

  /** Moves a socket's entries in the account index to its new set of watched accounts. */
  #watch(connection: Connection, next: Set<string>): void {
    for (const account of connection.accounts) {
      if (next.has(account)) continue
      const set = this.#watchers.get(account)
      set?.delete(connection)
      if (set?.size === 0) this.#watchers.delete(account)
    }
    for (const account of next) {
      if (connection.accounts.has(account)) continue
      let set = this.#watchers.get(account)
      if (!set) this.#watchers.set(account, (set = new Set()))
      set.add(connection)
    }
    connection.accounts = next
  }

  #sendTo(targets: Iterable<Connection>, text: string): Promise<void> {
    const writes: Array<Promise<void>> = []
    for (const target of targets) writes.push(target.socket.send(text))
    return writes.length === 0 ? Promise.resolve() : Promise.all(writes).then(() => undefined)
  }

  /** Answers one HTTP request (CORS on every answer: browser apps call the simulator from another origin). */
  async http(request: SimRequest): Promise<SimAnswer> {
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'retry-after' }
    const url = new URL(request.url, 'http://x')
    if (request.method === 'OPTIONS') {
      const allowHeaders = request.headers['access-control-request-headers']
      return { status: 204, headers: { ...cors, 'access-control-allow-methods': 'POST, GET, OPTIONS', 'access-control-allow-headers': String(allowHeaders ?? 'content-type'), 'access-control-max-age': '600' }, body: '' }
    }
    let trickleMs: number | undefined
    const json = (status: number, body: unknown, headers?: Record<string, string>): SimAnswer => ({ status, headers: { ...cors, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), trickleMs })
    let body: unknown
    try {
      if (request.tooLarge) throw new BadRequest('body too large')
      if (request.body !== '') {
        try {
          body = JSON.parse(request.body)
        } catch {
          throw new BadRequest('body is not JSON')
        }
      }
    } catch (error) {
      this.#keep(this.#requests, { method: request.method, url: url.pathname, body: undefined })
      return json(400, { error: (error as Error).message })
    }
    this.#keep(this.#requests, { method: request.method, url: url.pathname + url.search, body })
    this.#keep(this.#headersSeen, { ...request.headers })
    if (this.#token !== undefined && request.headers.authorization !== `Bearer ${this.#token}`) {
      return json(401, { error: 'missing or expired token: send authorization: Bearer <token>' })
    }
    const fault = await this.faults.next()
    if (fault && 'destroy' in fault) return fault
    if (fault && 'status' in fault) return { ...fault, headers: { ...cors, ...fault.headers } }
    if (fault) trickleMs = fault.trickleMs
    try {
      if (request.method === 'GET' && url.pathname === '/health') return json(200, { ok: true, protocol: this.#options.protocol })
      const answer = this.#speaks.route(request.method, url.pathname, body)
      // Read now, sent now or when a hold is released (holdHttpAnswers).
      if (answer) {
        const read = json(200, answer.body)
        return await new Promise<SimAnswer>((resolve) => this.faults.answer(() => resolve(read)))
      }
      return json(404, { error: `no route ${request.method} ${url.pathname} on a ${this.#options.protocol} simulator` })
    } catch (error) {
      if (error instanceof BadRequest) return json(400, { error: error.message })
      throw error
    }
  }

  /** Ends every socket and waiter; the transport then closes its own servers. */
  async close(): Promise<void> {
    this.faults.clear()
    for (const waiter of this.#subscriberWaiters) waiter.resolve()
    this.#subscriberWaiters.clear()
    await Promise.all([...this.#connections.values()].map((c) => c.socket.terminate()))
  }

  publish: SimulatorBehaviour['publish'] = (frame, publishOptions) => {
    const account = String(frame.counterparty_address ?? '').toLowerCase()
    this.#speaks.store(frame)
    if (this.#stalled || publishOptions?.live === false) return Promise.resolve()
    const watching = this.#watchers.get(account)
    if (watching === undefined) return Promise.resolve()
    const text = this.#speaks.encode(frame)
    const targets: Connection[] = []
    for (const connection of watching) if (this.#speaks.matches(connection.state, frame, account)) targets.push(connection)
    return this.#sendTo(targets, text)
  }

  /** Everything a {@link SolverSimulator} does besides its URLs and `close`, bound to this core. */
  behaviour(): SimulatorBehaviour {
    const lifecycles = this.#lifecycles
    return {
      protocol: this.#options.protocol,
      channel: this.channel,
      publish: this.publish,
      sendRaw: (text) => (this.#stalled ? Promise.resolve() : this.#sendTo(this.#connections.values(), text)),
      connections: () => [...this.#connections.values()].map((c) => ({ ...c.record, accounts: [...c.accounts], received: [...c.record.received] })),
      subscriptions: () => [...this.#subscriptions],
      waitForSubscribers: (account, count = 1, waitOptions) => {
        const key = String(account).toLowerCase()
        if ((this.#watchers.get(key)?.size ?? 0) >= count) return Promise.resolve()
        return new Promise<void>((resolve, reject) => {
          const timeoutMs = waitOptions?.timeoutMs ?? 10_000
          const timer = setTimeout(() => {
            this.#subscriberWaiters.delete(waiter)
            const now = this.#watchers.get(key)?.size ?? 0
            reject(new Error(`waitForSubscribers: ${now} of ${count} socket(s) watch ${account} after ${timeoutMs} ms; did the client subscribe to this account on this simulator?`))
          }, timeoutMs)
          const waiter = {
            account: key,
            count,
            resolve: () => {
              clearTimeout(timer)
              resolve()
            },
          }
          this.#subscriberWaiters.add(waiter)
        })
      },
      dropAll: (code = 1012, dropOptions) =>
        Promise.all([...this.#connections.values()].map((c) => (dropOptions?.terminate ? c.socket.terminate() : c.socket.close(code, 'simulator dropAll')))).then(() => undefined),
      refuseSockets: (refuse = true) => {
        this.#refusing = refuse
      },
      stall: () => {
        this.#stalled = true
      },
      resume: () => {
        this.#stalled = false
      },
      injectHttpFault: (fault) => this.faults.add(fault),
      holdHttpAnswers: () => this.faults.hold(),
      clearHttpFaults: () => this.faults.clear(),
      rotateToken: async (next) => {
        if (this.#token === undefined) throw new Error('rotateToken needs a simulator started with { auth: { token } }')
        this.#token = next
        await Promise.all([...this.#connections.values()].filter((c) => c.token !== next).map((c) => c.socket.close(4001, 'token expired')))
      },
      requestHeaders: () => [...this.#headersSeen],
      httpRequests: () => [...this.#requests],
      documents: () => (this.#speaks.documents?.() ?? []) as readonly StoredDocument[],
      positionStates: () => this.#speaks.positionStates?.() ?? [],
      tick: () => lifecycles.tick(),
      instantOpen: (account, o) => lifecycles.instantOpen(account, o),
      fill: (quoteId) => lifecycles.fill(quoteId),
      closeRequest: (quoteId) => lifecycles.closeRequest(quoteId),
      fail: (account, o) => lifecycles.fail(account, o),
    }
  }
}
