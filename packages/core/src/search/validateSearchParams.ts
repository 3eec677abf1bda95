import { isLoopbackHost } from '../config/isLoopbackHost.js'
import { ServiceError } from '../errors/ServiceError.js'
import type { AnyProtocolSearch } from '../protocol/searchProtocols.js'
import { assertAddress, describe } from '../utils/address.js'
import type { SearchNotificationsParams } from '../protocol/searchTypes.js'

const FILTER_KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/

const invalid = (message: string) => new ServiceError('INVALID_PARAMETERS', message)

/** Rejects every out-of-range parameter before a request is made (core README, "Hostile and unlucky input"). */
export function validateSearchParams(params: SearchNotificationsParams, search: AnyProtocolSearch, allowInsecureTransport: boolean): void {
  if (params === null || typeof params !== 'object') throw invalid('search parameters must be an object, e.g. { account }')
  if (params.account !== undefined) assertAddress(params.account)
  integer(params.start, 'start', 0)
  integer(params.size, 'size', 1, search.maxSize)
  finite(params.quoteId, 'quoteId')
  finite(params.tempQuoteId, 'tempQuoteId')
  finite(params.timestampGte, 'timestampGte')
  if (params.filter !== undefined) validateFilter(params)
  if (params.baseUrl !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(params.baseUrl)
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw invalid(`baseUrl must be an http(s) URL, got ${describe(params.baseUrl)}`)
    const host = url.hostname
    if (url.protocol === 'http:' && !allowInsecureTransport && !isLoopbackHost(host)) {
      throw invalid(`baseUrl: http:// to ${host} would send account data in clear text; use https:// or set allowInsecureTransport on the config`)
    }
  }
}

function integer(value: unknown, name: string, min: number, max?: number): void {
  if (value === undefined) return
  // Safe integers only: 1e21 is an integer to JavaScript but prints as "1e+21" in a URL path.
  const top = max ?? Number.MAX_SAFE_INTEGER
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > top) {
    throw invalid(`${name} must be an integer from ${min} to ${top}, got ${describe(value)}`)
  }
}

function finite(value: unknown, name: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    throw invalid(`${name} must be a finite number, got ${describe(value)}`)
  }
}

function validateFilter(params: SearchNotificationsParams): void {
  const filter = params.filter
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) throw invalid('filter must be an object of exact-equality matches')
  for (const [key, value] of Object.entries(filter)) {
    if (!FILTER_KEY.test(key)) throw invalid(`filter key ${describe(key)} is not a field name or dotted data.* path`)
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(`filter value of ${key} must be a string, number, boolean or null, got ${describe(value)}`)
    }
  }
  const conflict = (key: string, param: string, value: unknown, same: (a: unknown, b: unknown) => boolean = Object.is) => {
    if (value !== undefined && Object.hasOwn(filter, key) && !same(filter[key], value)) {
      throw invalid(`filter.${key} (${describe(filter[key])}) conflicts with ${param} (${describe(value)}); give one of them`)
    }
  }
  conflict('address', 'account', params.account, (a, b) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase())
  conflict('data.quote_id', 'quoteId', params.quoteId)
  conflict('data.temp_quote_id', 'tempQuoteId', params.tempQuoteId)
}
