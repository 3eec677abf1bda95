import type * as ZodMini from 'zod/mini'
import type { Address } from '../utils/address.js'
import type { DecodedFrame, WireFrame } from './frame.js'
import type { RawPositionNotification } from './rawNotification.js'
import type { SearchParamsBase } from './searchParamsBase.js'
import type { NotificationsBlock, SolverEndpointOf } from './solverEndpoint.js'

/**
 * A wire protocol as one codec: everything it decides about its wire (decode, routing, where its
 * ids are, search request and result), typed by its own `Frame`, stored `Row`, search `Params`,
 * search `Result` and `Config` block, so an implementation needs no casts. The socket pool, live
 * streams, search and backfill each have one code path over these. A protocol is one folder under
 * `protocol/` exporting its halves (wire, search, config), registered in `protocols.ts`,
 * `searchProtocols.ts` and `protocolConfigs` (or at run time with `registerProtocol`); the
 * registries' types are derived from those values.
 */
export interface ProtocolModule<
  Frame extends WireFrame = WireFrame,
  Row = unknown,
  Params extends SearchParamsBase = SearchParamsBase,
  Result extends SearchResultBase = SearchResultBase,
  Config extends NotificationsBlock = NotificationsBlock,
> extends ProtocolWire<Config, Frame> {
  readonly search: ProtocolSearch<Frame, Row, Params, Result, Config>
}

/** What every protocol's search result has: its `kind` (the protocol's name) and the rows of the page. */
export interface SearchResultBase {
  readonly kind: string
  readonly rows: readonly unknown[]
}

/**
 * The live half of a protocol: sockets, frames and routing. Kept apart from the search half so an app
 * that only streams bundles no search code, and one that only searches no socket code. (Members are
 * methods, so a codec typed by its own frame and config is assignable to the registry's wider type.)
 */
export interface ProtocolWire<Config extends NotificationsBlock = NotificationsBlock, Frame extends WireFrame = WireFrame> {
  readonly protocol: Config['protocol']
  /** Sockets with equal endpoint keys are interchangeable and shared by the pool. */
  endpointKey(notifications: Config): string
  /** true: one socket (a hub) carries many accounts; false: one socket per account. */
  readonly multiplexed: boolean
  /** The frame sent on every open and, on a hub, whenever its set of accounts changes; `accounts` are distinct case-insensitively. */
  subscribeFrame(notifications: Config, accounts: readonly Address[]): string
  /** Decodes one inbound text frame, with its routing key (`address`) and account read off it; never throws. */
  decode(text: string, maxFrameBytes: number): DecodedFrame<Frame>
  /**
   * The frame of a raw notification an app already holds, with the fields the wire sent around it
   * (`envelope`, e.g. enigma's envelope or stored document), for `normalizeNotification`.
   */
  frameOf(raw: RawPositionNotification, envelope: Readonly<Record<string, unknown>> | undefined): Frame
}

/**
 * The config half of a protocol, apart from the wire half so the frame helpers never carry it:
 * its `notifications` block's schema, shape and URL fields.
 */
export interface ProtocolConfigModule<Name extends string = string> {
  readonly protocol: Name
  /**
   * Its `notifications` config block as a zod/mini object schema (with a `protocol` literal). Given
   * the few zod builders it needs by the config layer (handing over the whole namespace would keep
   * all of zod in every bundle).
   */
  configSchema(z: ConfigSchemaKit): ZodMini.ZodMiniObject
  /** One line of what its config block looks like, for the error of an unknown protocol. */
  readonly configShape: string
  /** The URLs of its config block and the schemes each takes, checked by `createConfig` (scheme, clear text). */
  readonly urlFields: ReadonlyArray<{ readonly key: string; readonly schemes: readonly string[] }>
}

/** The zod/mini builders a protocol's config schema is made with. */
export interface ConfigSchemaKit {
  object: typeof ZodMini.object
  literal: typeof ZodMini.literal
  optional: typeof ZodMini.optional
  /** a non-empty string, `what` naming what is expected */
  nonEmpty(what: string): ZodMini.ZodMiniString<string>
}

/** The history half of a protocol: request, response shape, paging and backfill. */
export interface ProtocolSearch<
  Frame extends WireFrame = WireFrame,
  Row = unknown,
  Params extends SearchParamsBase = SearchParamsBase,
  Result extends SearchResultBase = SearchResultBase,
  Config extends NotificationsBlock = NotificationsBlock,
> {
  /** A stored search row (enigma document, rasa position state) as a frame; its `raw` is not sealed. */
  decodeStored(row: Row): Frame
  /** page size of a single search when none is given (undefined: the service decides) */
  readonly defaultSize: number | undefined
  /** page size `searchPages` and backfill walk with when none is given */
  readonly pageSize: number
  /** the largest `size` the endpoint accepts, when it has a limit */
  readonly maxSize: number | undefined
  /** URL and JSON body of one search; throws `SEARCH_URL_NOT_CONFIGURED` when the solver lacks its URL. */
  request(solver: SolverEndpointOf<Config>, params: Params): { url: string; body: unknown }
  /** The response envelope as data (validated by the search client): the rows field and the number fields. */
  readonly envelope: { readonly rows: string; readonly rowsOptional: boolean; readonly numbers: readonly string[] }
  /** Why a stored row is not usable, or undefined when it is (a usable row is a `Row`). */
  checkRow(row: unknown): string | undefined
  /** The `kind`-tagged result of a validated envelope and its usable rows. */
  result(envelope: Readonly<Record<string, unknown>>, rows: Row[]): Result
  /** How many rows the service reports for the whole search (enigma `total`, rasa `count`). */
  totalOf(result: Result): number
  /** Search parameters that find an account's stored notifications changed at or after `since` (seconds). */
  backfillParams(account: Address, since: number): Params
  /** Search parameters that find one quote's stored notifications (rows of other quotes may come too; they are filtered out). */
  quoteParams(account: Address, quote: { quoteId?: number | undefined; tempQuoteId?: number | undefined }): Params
  /** Whether backfill can stop paging once rows are older than `since` (history comes newest first). */
  readonly newestFirst: boolean
  /** History keeps each quote's latest state only (rasa): a backfill brings a quote's state back, not the transitions before it. */
  readonly latestStateOnly?: boolean | undefined
}
