import type { AnyProtocolSearch } from '../protocol/searchProtocols.js'
import type { NotificationSearchResult } from '../protocol/searchTypes.js'
import { isPlainObject } from '../protocol/frame.js'


/**
 * Validates a search response body against its protocol's envelope (number fields and a rows array,
 * unknown fields kept); returns the `kind`-tagged result, or the exact path of what is wrong. The
 * envelope is flat, so this is checked by hand: zod (which validates the config, where nesting and
 * unions earn it) would add about 5 KiB to a search-only bundle for three fields. Rows are checked by
 * the protocol's own row check, which live frames share.
 */
export function parseSearchResponse(search: AnyProtocolSearch, body: unknown): NotificationSearchResult | string {
  const { rows: rowsField, rowsOptional, numbers } = search.envelope
  const expected = `expected { ${[...numbers, `${rowsField}: [...]`].join(', ')} }`
  if (!isPlainObject(body)) return `${expected}, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`
  for (const field of numbers) {
    if (typeof body[field] !== 'number') return `${expected}: ${field} is ${describeValue(body[field])}, not a number`
  }
  const rows = body[rowsField] ?? (rowsOptional ? [] : undefined)
  if (!Array.isArray(rows)) return `${expected}: ${rowsField} is ${describeValue(body[rowsField])}, not an array`
  for (let i = 0; i < rows.length; i++) {
    const reason = search.checkRow(rows[i])
    if (reason !== undefined) return `${rowsField}.${i}${reason.startsWith('.') ? reason : ` ${reason}`}`
  }
  return search.result(body, rows)
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'missing'
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}
