import type { SimulatorFrame } from '../types.js'

/**
 * Everything one wire protocol decides in the simulator, behind one interface: how a socket
 * subscribes, what a published frame looks like on the wire and who gets it, how history is stored
 * and searched, and how scripted lifecycles differ. `startSolverSimulator` and the CLI have one path
 * for every protocol; a protocol is one file under `protocols/` plus one line in `protocols/index.ts`.
 *
 * @example
 * registerSimulatorProtocol(myProtocol)
 * const sim = await startSolverSimulator({ protocol: 'mine' as never })
 */
export interface SimulatorProtocolModule {
  readonly name: string
  /** the socket path it serves (a config's `notifications.url` ends with it) */
  readonly wsPath: string
  /** One simulator's half of the protocol (its history lives here). */
  create(context: { channel: string; options: Record<string, unknown> }): SimulatorProtocolInstance
  /** How its scripted lifecycles differ from the other protocols'. */
  readonly lifecycle: {
    /** `quote_id` of a frame before the quote is on-chain */
    preChainQuoteId(tempQuoteId: number): number
    /** what an amount, price or error code without a value is sent as */
    readonly noValue: 0 | null
    /** fields only this protocol has, on every frame */
    readonly extraFields: Readonly<Record<string, unknown>>
    /** fields it adds to a failure */
    failureFields(message: string | undefined): Record<string, unknown>
  }
  /** Lines the CLI prints to say what a config takes (URLs, channel). */
  describe(sim: { wsUrl: string; httpUrl: string; searchUrl: string; channel: string }): string[]
}

/** One simulator's protocol state: per-socket subscriptions and the stored history. */
export interface SimulatorProtocolInstance {
  /** State of a new socket (enigma: its channel patterns). */
  newSocket(): unknown
  /** The lowercase accounts a socket watches after this frame, or undefined when it is not a valid subscribe frame (ignored). */
  subscribe(socket: unknown, frame: unknown, watching: ReadonlySet<string>): Set<string> | undefined
  /** The text a published frame goes out as. */
  encode(frame: SimulatorFrame): string
  /** Whether a socket watching the frame's account gets it. */
  matches(socket: unknown, frame: SimulatorFrame, account: string): boolean
  /** Stores a published frame in history. */
  store(frame: SimulatorFrame): void
  /** Answers a request of its history API; undefined when the route is not its own. */
  route(method: string, pathname: string, body: unknown): { body: unknown } | undefined
  /** Stored documents, for protocols that keep every transition. */
  documents?(): readonly unknown[]
  /** Latest state per quote, for protocols that keep only that. */
  positionStates?(): SimulatorFrame[]
}
