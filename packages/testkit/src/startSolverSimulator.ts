import { type IncomingMessage, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'
import { BadRequest } from './BadRequest.js'
import { type HttpFault, HttpFaults, type HttpHold } from './HttpFaults.js'
import { type LifecycleResult, Lifecycles, type SimulatorClock } from './Lifecycles.js'
import type { EnigmaOrder, StoredDocument } from './protocols/EnigmaHistory.js'
import { simulatorProtocols } from './protocols/index.js'
import type { ConnectionRecord, SimulatorFrame, SimulatorProtocol, SubscriptionRecord } from './types.js'

/**
 * Options of {@link startSolverSimulator}.
 *
 * @example
 * const sim = await startSolverSimulator({ protocol: 'enigma', channel: 'Test_Channel' })
 */
export interface SolverSimulatorOptions {
  /** a built-in protocol, or the name of one added with `registerSimulatorProtocol` */
  protocol: SimulatorProtocol | (string & {})
  /** enigma channel (`app_name`); default `Simulator_Channel`. */
  channel?: string
  /** 0 (default) picks a free port. */
  port?: number
  /** Loopback by default; the simulator is for local tests. */
  host?: string
  /** enigma: send `data` as a JSON string, as some servers do. */
  enigmaDataAsString?: boolean
  /** enigma: order of search results (default newest first; the real service promises none). */
  enigmaOrder?: EnigmaOrder
  /** Start of the lifecycle clock in unix seconds, for deterministic `modify_time` values. */
  clockStart?: number
  /**
   * `steady` (default): every `modify_time` one second after the last at least, so frames sort in the
   * order published. `wall`: the current second (frames within one second share it), so a simulator
   * that publishes fast for a long time never runs ahead of the wall clock (the CLI's choice).
   */
  clock?: SimulatorClock
  /**
   * Require credentials: history requests need `authorization: Bearer <token>` (else 401), sockets
   * `?token=<token>` in their URL (else the upgrade is refused with 401).
   */
  auth?: { token: string }
  /**
   * How many entries each inspection log keeps (frames received per connection, subscriptions, HTTP
   * requests and headers), oldest dropped first: a simulator running for hours stays bounded (10,000).
   */
  recordLimit?: number
}

/**
 * A running simulator: URLs to configure a client with, publishing, inspection and fault injection.
 *
 * @example
 * const sim = await startSolverSimulator({ protocol: 'rasa' })
 * await sim.instantOpen('0x1111111111111111111111111111111111111111')
 * await sim.close()
 */
export interface SolverSimulator {
  /** the protocol it speaks (a built-in one, or one added with `registerSimulatorProtocol`) */
  readonly protocol: SimulatorProtocol | (string & {})
  readonly channel: string
  /** What a config's `notifications.url` takes. */
  readonly wsUrl: string
  /** What a rasa solver's `url` takes. */
  readonly httpUrl: string
  /** What an enigma config's `searchUrl` takes. */
  readonly searchUrl: string
  /**
   * Stores the frame and delivers it to matching sockets; resolves once written to them. `live: false`
   * stores it only, as a confirmation a solver never announces on the socket.
   */
  publish(frame: SimulatorFrame, options?: { live?: boolean }): Promise<void>
  /** Sends text as-is to every open socket (malformed or control frames). */
  sendRaw(text: string): Promise<void>
  connections(): ConnectionRecord[]
  subscriptions(): SubscriptionRecord[]
  /**
   * Resolves once `count` sockets watch `account` (case-insensitive) as far as the simulator knows. A
   * client's status `open` means its subscribe frame was sent, not that it arrived here: await this
   * before publishing, or the frames go to nobody.
   */
  waitForSubscribers(account: string, count?: number, options?: { timeoutMs?: number }): Promise<void>
  /** Closes every socket with `code` (default 1012); `terminate: true` drops them without a close frame. */
  dropAll(code?: number, options?: { terminate?: boolean }): Promise<void>
  /** Keeps sockets open but sends nothing and answers no pings, like a dead link. */
  stall(): void
  resume(): void
  /**
   * While on, every socket upgrade is answered `503 Service Unavailable` (a socket endpoint that is
   * down, or a proxy that blocks WebSockets) while history keeps answering; sockets already open stay.
   */
  refuseSockets(refuse?: boolean): void
  /** Applies a fault to the next HTTP responses. */
  injectHttpFault(fault: HttpFault): void
  /**
   * From now on history requests are read when they arrive and answered only when the returned hold
   * is released: a poll or backfill in flight across another event, deterministically.
   */
  holdHttpAnswers(): HttpHold
  /** Removes every HTTP fault still pending (held answers are dropped): the next responses are real again. */
  clearHttpFaults(): void
  /**
   * Replaces the token (with `auth`): sockets dialed with the old one are closed with 4001 ("token
   * expired") and history requests carrying it get 401 from now on.
   */
  rotateToken(next: string): Promise<void>
  /** Request headers of every HTTP request and socket upgrade received, in order (names lowercase). */
  requestHeaders(): Array<Record<string, string | string[] | undefined>>
  /** Every HTTP request received, in order, with its parsed JSON body. */
  httpRequests(): Array<{ method: string; url: string; body: unknown }>
  /** Every stored document, where the protocol keeps every transition (enigma); else empty. */
  documents(): readonly StoredDocument[]
  /** The latest state per quote, where the protocol keeps only that (rasa); else empty. */
  positionStates(): SimulatorFrame[]
  /**
   * The next `modify_time` of the simulator's clock (unix seconds, strictly increasing, shared with the
   * scripted lifecycles), for hand-made frames that must sort with them as a real server's would.
   */
  tick(): number
  instantOpen(account: string, options?: { amount?: string; price?: string }): Promise<LifecycleResult>
  fill(quoteId: number): Promise<LifecycleResult>
  closeRequest(quoteId: number): Promise<LifecycleResult>
  fail(account: string, options?: { failureType?: string; errorCode?: number; message?: string }): Promise<LifecycleResult>
  close(): Promise<void>
}

interface Connection {
  record: ConnectionRecord
  ws: WebSocket
  /** the token its URL carried (with `auth`) */
  token: string | null
  /** lowercase accounts watched, as the protocol's subscribe frames say */
  accounts: Set<string>
  /** the protocol's own state of this socket */
  state: unknown
  corked: boolean
}
const MAX_BODY_BYTES = 1 << 20

/**
 * Starts a real solver simulator (WebSocket + HTTP on one loopback port) speaking one protocol.
 *
 * @example
 * const sim = await startSolverSimulator({ protocol: 'enigma' })
 * const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 's', solvers: { s: { notifications: { protocol: 'enigma', url: sim.wsUrl, channel: sim.channel, searchUrl: sim.searchUrl } } } } } })
 */
export async function startSolverSimulator(options: SolverSimulatorOptions): Promise<SolverSimulator> {
  const { protocol } = options
  const module = Object.hasOwn(simulatorProtocols, String(protocol)) ? simulatorProtocols[protocol] : undefined
  if (!module) throw new Error(`protocol must be one of ${Object.keys(simulatorProtocols).map((p) => JSON.stringify(p)).join(', ')}, got ${JSON.stringify(protocol)}`)
  const channel = options.channel ?? 'Simulator_Channel'
  const host = options.host ?? '127.0.0.1'
  const speaks = module.create({ channel, options: options as unknown as Record<string, unknown> })
  const faults = new HttpFaults()
  const recordLimit = options.recordLimit ?? 10_000
  if (!Number.isInteger(recordLimit) || recordLimit < 0) throw new Error(`recordLimit must be a whole number of entries (0 keeps none), got ${String(options.recordLimit)}`)
  /** Appends to an inspection log, dropping the oldest beyond the limit. */
  const keep = <T>(log: T[], entry: T) => {
    if (recordLimit === 0) return
    log.push(entry)
    if (log.length > recordLimit) log.splice(0, log.length - recordLimit)
  }
  const requests: Array<{ method: string; url: string; body: unknown }> = []
  const connections = new Map<number, Connection>()
  /** lowercase account → the sockets watching it: publishing is one lookup, not a scan of every socket */
  const watchers = new Map<string, Set<Connection>>()
  const subscriberWaiters = new Set<{ account: string; count: number; resolve: () => void }>()
  const subscriptions: SubscriptionRecord[] = []
  let nextConnectionId = 1
  let stalled = false
  let refusing = false
  let token = options.auth?.token
  const headersSeen: Array<Record<string, string | string[] | undefined>> = []

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(error) }))
    })
  })
  const wss = new WebSocketServer({ noServer: true, autoPong: false, maxPayload: MAX_BODY_BYTES })

  server.on('upgrade', (req, socket, head) => {
    keep(headersSeen, { ...req.headers })
    const url = new URL(req.url ?? '/', 'http://x')
    const path = url.pathname
    if (path !== module.wsPath) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n')
      return
    }
    if (refusing) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    const given = url.searchParams.get('token')
    if (token !== undefined && given !== token) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, path, given))
  })

  function onConnection(ws: WebSocket, path: string, given: string | null): void {
    const record: ConnectionRecord = { id: nextConnectionId++, path, open: true, accounts: [], received: [] }
    const connection: Connection = { record, ws, token: given, accounts: new Set(), state: speaks.newSocket(), corked: false }
    connections.set(record.id, connection)
    ws.on('ping', (data) => {
      if (!stalled) ws.pong(data)
    })
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString()
      keep(record.received, text)
      onSubscribe(connection, text)
    })
    ws.on('close', (code) => {
      record.open = false
      record.closeCode = code
      connections.delete(record.id)
      watch(connection, new Set())
    })
    ws.on('error', () => {
      /* a client that vanished mid-frame; close follows */
    })
  }

  function onSubscribe(connection: Connection, text: string): void {
    let frame: unknown = text
    try {
      frame = JSON.parse(text)
    } catch {
      /* recorded as given */
    }
    const next = speaks.subscribe(connection.state, frame, connection.accounts)
    if (next) watch(connection, next)
    const valid = next !== undefined
    keep(subscriptions, { connectionId: connection.record.id, frame, valid })
    for (const waiter of subscriberWaiters) {
      if ((watchers.get(waiter.account)?.size ?? 0) >= waiter.count) {
        subscriberWaiters.delete(waiter)
        waiter.resolve()
      }
    }
  }

  /** Moves a socket's entries in the account index to its new set of watched accounts. */
  function watch(connection: Connection, next: Set<string>): void {
    for (const account of connection.accounts) {
      if (next.has(account)) continue
      const set = watchers.get(account)
      set?.delete(connection)
      if (set?.size === 0) watchers.delete(account)
    }
    for (const account of next) {
      if (connection.accounts.has(account)) continue
      let set = watchers.get(account)
      if (!set) watchers.set(account, (set = new Set()))
      set.add(connection)
    }
    connection.accounts = next
  }

  function sendTo(targets: Iterable<Connection> & { length?: number; size?: number }, text: string): Promise<void> {
    const count = targets.length ?? targets.size ?? 0
    if (count === 0) return Promise.resolve()
    return new Promise((resolve) => {
      let pending = count
      const done = () => {
        if (--pending === 0) resolve()
      }
      for (const target of targets) {
        if (target.ws.readyState !== target.ws.OPEN) done()
        else {
          cork(target)
          target.ws.send(text, done)
        }
      }
    })
  }

  /**
   * Frames published in one tick leave in one write: without it every frame is its own writev
   * syscall, which capped publishing near 90,000 frames/s to one socket.
   */
  function cork(connection: Connection): void {
    if (connection.corked) return
    const socket = (connection.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket
    if (!socket) return
    connection.corked = true
    socket.cork()
    process.nextTick(() => {
      connection.corked = false
      socket.uncork()
    })
  }

  function publish(frame: SimulatorFrame, publishOptions?: { live?: boolean }): Promise<void> {
    const account = String(frame.counterparty_address ?? '').toLowerCase()
    speaks.store(frame)
    if (stalled || publishOptions?.live === false) return Promise.resolve()
    const watching = watchers.get(account)
    if (watching === undefined) return Promise.resolve()
    const text = speaks.encode(frame)
    const targets: Connection[] = []
    for (const connection of watching) if (speaks.matches(connection.state, frame, account)) targets.push(connection)
    return sendTo(targets, text)
  }

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req) {
      size += (chunk as Buffer).length
      if (size > MAX_BODY_BYTES) throw new BadRequest('body too large')
      chunks.push(chunk as Buffer)
    }
    const text = Buffer.concat(chunks).toString('utf8')
    if (text === '') return undefined
    try {
      return JSON.parse(text)
    } catch {
      throw new BadRequest('body is not JSON')
    }
  }

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x')
    // Browser apps (the examples) call the simulator from another origin.
    res.setHeader('access-control-allow-origin', '*')
    res.setHeader('access-control-expose-headers', 'retry-after')
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'POST, GET, OPTIONS', 'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type', 'access-control-max-age': '600' }).end()
      return
    }
    let trickleMs = 0
    const send = (status: number, body: unknown) => {
      if (trickleMs > 0) faults.trickle(res, status, JSON.stringify(body), trickleMs)
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    }
    let body: unknown
    try {
      body = await readJson(req)
    } catch (error) {
      keep(requests, { method: req.method ?? 'GET', url: url.pathname, body: undefined })
      send(400, { error: (error as Error).message })
      return
    }
    keep(requests, { method: req.method ?? 'GET', url: url.pathname + url.search, body })
    keep(headersSeen, { ...req.headers })
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
      send(401, { error: 'missing or expired token: send authorization: Bearer <token>' })
      return
    }
    const applied = await faults.apply(req, res)
    if (applied === true) return
    if (applied) trickleMs = applied.trickleMs
    try {
      if (req.method === 'GET' && url.pathname === '/health') return void send(200, { ok: true, protocol })
      const answer = speaks.route(req.method ?? 'GET', url.pathname, body)
      // Read now, sent now or when a hold is released (holdHttpAnswers).
      if (answer) return void faults.answer(() => send(200, answer.body))
      send(404, { error: `no route ${req.method} ${url.pathname} on a ${protocol} simulator` })
    } catch (error) {
      if (error instanceof BadRequest) send(400, { error: error.message })
      else throw error
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const hostText = host.includes(':') ? `[${host}]` : host
  const httpUrl = `http://${hostText}:${port}`
  const lifecycles = new Lifecycles(module, publish, options.clockStart, options.clock)

  return {
    protocol,
    channel,
    wsUrl: `ws://${hostText}:${port}${module.wsPath}`,
    httpUrl,
    searchUrl: `${httpUrl}/notification`,
    publish,
    sendRaw(text) {
      return stalled ? Promise.resolve() : sendTo([...connections.values()], text)
    },
    connections: () => [...connections.values()].map((c) => ({ ...c.record, accounts: [...c.accounts], received: [...c.record.received] })),
    subscriptions: () => [...subscriptions],
    waitForSubscribers(account, count = 1, waitOptions) {
      const key = String(account).toLowerCase()
      if ((watchers.get(key)?.size ?? 0) >= count) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        const timeoutMs = waitOptions?.timeoutMs ?? 10_000
        const timer = setTimeout(() => {
          subscriberWaiters.delete(waiter)
          const now = watchers.get(key)?.size ?? 0
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
        subscriberWaiters.add(waiter)
      })
    },
    dropAll(code = 1012, dropOptions) {
      const closing = [...connections.values()].map(
        (c) =>
          new Promise<void>((resolve) => {
            c.ws.once('close', () => resolve())
            if (dropOptions?.terminate) c.ws.terminate()
            else c.ws.close(code, 'simulator dropAll')
          }),
      )
      return Promise.all(closing).then(() => undefined)
    },
    refuseSockets(refuse = true) {
      refusing = refuse
    },
    stall() {
      stalled = true
    },
    resume() {
      stalled = false
    },
    injectHttpFault: (fault) => faults.add(fault),
    holdHttpAnswers: () => faults.hold(),
    clearHttpFaults: () => faults.clear(),
    async rotateToken(next) {
      if (token === undefined) throw new Error('rotateToken needs a simulator started with { auth: { token } }')
      token = next
      const closing = [...connections.values()]
        .filter((c) => c.token !== next)
        .map(
          (c) =>
            new Promise<void>((resolve) => {
              c.ws.once('close', () => resolve())
              c.ws.close(4001, 'token expired')
            }),
        )
      await Promise.all(closing)
    },
    requestHeaders: () => [...headersSeen],
    httpRequests: () => [...requests],
    documents: () => (speaks.documents?.() ?? []) as readonly StoredDocument[],
    positionStates: () => speaks.positionStates?.() ?? [],
    tick: () => lifecycles.tick(),
    instantOpen: (account, o) => lifecycles.instantOpen(account, o),
    fill: (quoteId) => lifecycles.fill(quoteId),
    closeRequest: (quoteId) => lifecycles.closeRequest(quoteId),
    fail: (account, o) => lifecycles.fail(account, o),
    async close() {
      faults.clear()
      for (const waiter of subscriberWaiters) waiter.resolve()
      subscriberWaiters.clear()
      for (const c of connections.values()) c.ws.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
