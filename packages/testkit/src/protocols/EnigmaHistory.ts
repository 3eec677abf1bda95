import { BadRequest, isRecord, requireInteger } from '../BadRequest.js'
import type { SimulatorFrame } from '../types.js'

/**
 * A stored enigma notification document.
 *
 * @example
 * sim.documents()[0]?.data.quote_id
 */
export interface StoredDocument {
  id: string
  app_name: string
  address: string
  primary_identifier: number
  secondary_identifier: number | null
  create_time: number
  modify_time: number
  data: SimulatorFrame
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/
export const ENIGMA_DEFAULT_PAGE_SIZE = 20
const MAX_PAGE_SIZE = 1000

/** Every published enigma frame as a document, searchable by exact equality, newest first. */
export class EnigmaHistory {
  private readonly docs: StoredDocument[] = []
  private seq = 0

  constructor(
    private readonly channel: string,
    private readonly order: EnigmaOrder = 'newest',
  ) {}

  add(frame: SimulatorFrame, envelope: { address: string; primary: number; secondary: number | null }): StoredDocument {
    const now = Math.floor(Date.now() / 1000)
    const doc: StoredDocument = {
      id: `doc-${++this.seq}`,
      app_name: this.channel,
      address: envelope.address,
      primary_identifier: envelope.primary,
      secondary_identifier: envelope.secondary,
      create_time: frame.create_time ?? now,
      modify_time: frame.modify_time ?? now,
      data: frame,
    }
    this.docs.push(doc)
    return doc
  }

  all(): readonly StoredDocument[] {
    return this.docs
  }

  /** `POST /api/v1/search` with `{ query, start, size }`; throws {@link BadRequest} on a bad body. */
  search(body: unknown): { total: number; count: number; data?: StoredDocument[] } {
    if (!isRecord(body)) throw new BadRequest('body must be a JSON object { query, start, size }')
    const query = body.query ?? {}
    if (!isRecord(query)) throw new BadRequest('query must be an object of exact-equality filters')
    const filters: Array<[string[], unknown]> = []
    for (const [key, value] of Object.entries(query)) {
      if (!KEY.test(key)) throw new BadRequest(`query key ${JSON.stringify(key)} is not a field path`)
      if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
        throw new BadRequest(`query value of ${key} must be a string, number, boolean or null`)
      }
      filters.push([key.split('.'), value])
    }
    const start = body.start === undefined ? 0 : requireInteger(body.start, 'start', 0)
    const size = body.size === undefined ? ENIGMA_DEFAULT_PAGE_SIZE : requireInteger(body.size, 'size', 1, MAX_PAGE_SIZE)
    const matched: StoredDocument[] = []
    // Newest first: modify_time descending, later publication first on ties.
    for (let i = this.docs.length - 1; i >= 0; i--) {
      const doc = this.docs[i]!
      if (filters.every(([path, value]) => equals(readPath(doc, path), value))) matched.push(doc)
    }
    if (this.order === 'newest') matched.sort((a, b) => b.modify_time - a.modify_time)
    else if (this.order === 'oldest') matched.reverse()
    else matched.sort((a, b) => scramble(a.id) - scramble(b.id))
    // The real service omits `data` when nothing matched.
    if (matched.length === 0) return { total: 0, count: 0 }
    const data = matched.slice(start, start + size)
    return { total: matched.length, count: data.length, data }
  }
}

/**
 * How enigma history is ordered: the real service promises no order, so clients must not rely on one.
 * `shuffled` is a fixed pseudo-random order (stable across pages), `newest` the default.
 *
 * @example
 * await startSolverSimulator({ protocol: 'enigma', enigmaOrder: 'shuffled' })
 */
export type EnigmaOrder = 'newest' | 'oldest' | 'shuffled'

/** A stable pseudo-random rank of a document id. */
function scramble(id: string): number {
  let hash = 2166136261
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619)
  return hash >>> 0
}

function readPath(doc: StoredDocument, path: string[]): unknown {
  let value: unknown = doc
  for (const part of path) {
    if (!isRecord(value) || !Object.hasOwn(value, part)) return undefined
    value = value[part]
  }
  return value
}

/** Addresses compare case-insensitively, as the real service does; everything else exactly. */
function equals(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'string' && typeof expected === 'string' && actual.startsWith('0x')) {
    return actual.toLowerCase() === expected.toLowerCase()
  }
  return actual === expected
}
