import type { ResolvedSolver } from '../config/types.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { NotificationDocument, PositionStateResponseSchema, Protocol } from '../protocol/types.js'
import { isPlainObject } from '../protocol/decodedFrame.js'
import { findInvalidField } from '../protocol/validateRawFields.js'
import { enigmaResponseSchema, rasaResponseSchema } from './responseSchemas.js'
import type { EnigmaSearchResult, NotificationSearchResult, SearchNotificationsParams } from './types.js'
import { RASA_MAX_SIZE } from './validateSearchParams.js'

/** What differs between the protocols' search endpoints, behind one interface. */
export interface SearchDriver {
  /** The page size used when none is given (undefined: the service decides). */
  defaultSize: number | undefined
  request(solver: ResolvedSolver, params: SearchNotificationsParams): { url: string; body: unknown }
  /** Search parameters that find an account's stored notifications changed at or after `since` (seconds). */
  backfillParams(account: string, since: number): SearchNotificationsParams
  /** How many rows the service reports for the whole search (enigma `total`, rasa `count`). */
  totalOf(result: NotificationSearchResult): number
  /** Validates a parsed body; returns the result or a reason it is not of the expected shape. */
  parse(body: unknown): NotificationSearchResult | string
}

/** Joins a configured base URL and a path without ever producing `//`. */
function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

const notConfigured = (message: string) => new ServiceError('SEARCH_URL_NOT_CONFIGURED', message)

const enigmaSearch: SearchDriver = {
  defaultSize: undefined,
  // The service filters by equality only and promises no order: read the account's documents (bounded
  // by maxBackfillRows) and keep those at or after the watermark on this side.
  backfillParams: (account) => ({ account: account as `0x${string}`, size: 100 }),
  totalOf: (result) => (result as EnigmaSearchResult).total,
  request(solver, params) {
    const notifications = solver.notifications as { searchUrl?: string }
    const base = params.baseUrl ?? notifications.searchUrl
    if (!base) {
      throw notConfigured(
        `Solver "${solver.solverId}" on chain ${solver.chainId} has no notifications.searchUrl; add it to the config or pass baseUrl to search().`,
      )
    }
    const query: Record<string, unknown> = { ...params.filter }
    if (params.account !== undefined) query.address = params.account
    if (params.quoteId !== undefined) query['data.quote_id'] = params.quoteId
    if (params.tempQuoteId !== undefined) query['data.temp_quote_id'] = params.tempQuoteId
    const body: Record<string, unknown> = { query, start: params.start ?? 0 }
    if (params.size !== undefined) body.size = params.size
    return { url: joinUrl(base, '/api/v1/search'), body }
  },
  parse(body) {
    const parsed = enigmaResponseSchema.safeParse(body)
    if (!parsed.success) return `expected { total, count, data: [...] }: ${parsed.error.issues[0]?.path.join('.') || 'body'} ${parsed.error.issues[0]?.message ?? ''}`
    const rows = parsed.data.data as NotificationDocument[]
    for (let i = 0; i < rows.length; i++) {
      const row: unknown = rows[i]
      if (!isPlainObject(row)) return `data.${i} is not an object`
      const data = row.data
      if (typeof data === 'string') continue // some services store data as a JSON string; toNotification parses it
      if (!isPlainObject(data)) return `data.${i}.data is not an object`
      const bad = findInvalidField(data)
      if (bad) return `data.${i}.data.${bad} has the wrong type`
    }
    return { kind: 'enigma', total: parsed.data.total, count: parsed.data.count, rows }
  },
}

const rasaSearch: SearchDriver = {
  defaultSize: RASA_MAX_SIZE,
  backfillParams: (account, since) => ({ account: account as `0x${string}`, timestampGte: since, size: RASA_MAX_SIZE }),
  totalOf: (result) => result.count,
  request(solver, params) {
    if (!solver.url) {
      throw notConfigured(`Solver "${solver.solverId}" on chain ${solver.chainId} has no url; rasa search goes to the solver's own HTTP API, add its url to the config.`)
    }
    const start = params.start ?? 0
    const size = params.size ?? RASA_MAX_SIZE
    return {
      url: joinUrl(solver.url, `/position-state/${start}/${size}`),
      body: { address: params.account ?? null, quote_id: params.quoteId ?? null, create_time_gte: null, modify_time_gte: params.timestampGte ?? null },
    }
  },
  parse(body) {
    const parsed = rasaResponseSchema.safeParse(body)
    if (!parsed.success) return `expected { count, position_state: [...] }: ${parsed.error.issues[0]?.path.join('.') || 'body'} ${parsed.error.issues[0]?.message ?? ''}`
    const rows = parsed.data.position_state as PositionStateResponseSchema[]
    for (let i = 0; i < rows.length; i++) {
      const row: unknown = rows[i]
      if (!isPlainObject(row)) return `position_state.${i} is not an object`
      const bad = findInvalidField(row)
      if (bad) return `position_state.${i}.${bad} has the wrong type`
    }
    return { kind: 'rasa', count: parsed.data.count, rows }
  },
}

/** The search driver of each protocol. */
export const searchDrivers: Readonly<Record<Protocol, SearchDriver>> = { enigma: enigmaSearch, rasa: rasaSearch }
