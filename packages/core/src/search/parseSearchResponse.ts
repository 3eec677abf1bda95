import * as z from 'zod/mini'
import type { ProtocolSearch } from '../protocol/ProtocolModule.js'
import type { NotificationSearchResult } from '../protocol/searchTypes.js'

// Envelope schemas are built from each protocol's envelope description on first use, so an app that
// never searches never builds one, and protocol modules stay free of zod. Rows are checked by the
// protocol's own hand-written row check: a zod object schema per row copies every row, which B7
// measured as the largest cost of a search after the network.
const schemas = new WeakMap<ProtocolSearch, z.ZodMiniType>()

function schemaOf(search: ProtocolSearch): z.ZodMiniType {
  let schema = schemas.get(search)
  if (!schema) {
    const { rows, rowsOptional, numbers } = search.envelope
    const shape: Record<string, z.ZodMiniType> = {}
    for (const field of numbers) shape[field] = z.number()
    shape[rows] = rowsOptional ? z.optional(z.array(z.unknown())) : z.array(z.unknown())
    schema = z.looseObject(shape)
    schemas.set(search, schema)
  }
  return schema
}

/** Validates a search response body; returns the `kind`-tagged result, or why it is not of the expected shape. */
export function parseSearchResponse(search: ProtocolSearch, body: unknown): NotificationSearchResult | string {
  const parsed = schemaOf(search).safeParse(body)
  const { rows: rowsField, numbers } = search.envelope
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return `expected { ${[...numbers, `${rowsField}: [...]`].join(', ')} }: ${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim()
  }
  const envelope = parsed.data as Record<string, unknown>
  const rows = (envelope[rowsField] as unknown[] | undefined) ?? []
  for (let i = 0; i < rows.length; i++) {
    const reason = search.checkRow(rows[i])
    if (reason !== undefined) return `${rowsField}.${i}${reason.startsWith('.') ? reason : ` ${reason}`}`
  }
  return search.result(envelope, rows)
}
