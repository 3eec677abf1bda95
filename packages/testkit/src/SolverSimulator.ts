import type { HttpFault, HttpHold } from './HttpFaults.js'
import type { LifecycleResult, SimulatorClock } from './Lifecycles.js'
import type { EnigmaOrder, StoredDocument } from './protocols/EnigmaHistory.js'
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
