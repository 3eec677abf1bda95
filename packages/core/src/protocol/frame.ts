import type { RawPositionNotification } from './types.js'

/**
 * What a protocol module makes of one inbound text frame. `address` is the account the frame is for
 * as the wire names it (enigma: envelope `address`; rasa: `counterparty_address`); undefined when the
 * frame does not name one. `raw` is sealed (see {@link sealRaw}).
 */
export type DecodedFrame =
  | {
      kind: 'frame'
      raw: RawPositionNotification
      address: string | undefined
      /** enigma envelope identifiers, used when `data` itself lacks them */
      primaryIdentifier?: number | null | undefined
      secondaryIdentifier?: number | null | undefined
    }
  | { kind: 'control' }
  | { kind: 'malformed'; reason: string }
  | { kind: 'oversize' }

export type FrameOf<K extends DecodedFrame['kind']> = Extract<DecodedFrame, { kind: K }>

const CONTROL: DecodedFrame = /* @__PURE__ */ Object.freeze({ kind: 'control' })
const OVERSIZE: DecodedFrame = /* @__PURE__ */ Object.freeze({ kind: 'oversize' })
export const controlFrame = (): DecodedFrame => CONTROL
export const oversizeFrame = (): DecodedFrame => OVERSIZE

let encoder: TextEncoder | undefined

/** UTF-8 size check without encoding in the common case: a UTF-16 unit is 1–3 UTF-8 bytes. */
export function exceedsBytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true
  if (text.length * 3 <= maxBytes) return false
  encoder ??= new TextEncoder()
  return encoder.encode(text).length > maxBytes
}

/** Returned by {@link parseJson} for text that is not JSON. */
export const NOT_JSON: unique symbol = /* @__PURE__ */ Symbol('not json')

/** JSON.parse that reports failure with a sentinel instead of throwing or allocating a result object. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

/**
 * Makes a parsed frame a safe shared value: no own `__proto__` key (JSON.parse creates one from
 * `"__proto__": …`, which a later spread or merge would turn into prototype pollution) and frozen,
 * because one object is shared by every subscriber of the account. Mutates and returns `raw`, which
 * must be an object this library parsed itself.
 */
export function sealRaw<T extends Record<string, unknown>>(raw: T): Readonly<T> {
  if (Object.hasOwn(raw, '__proto__')) Reflect.deleteProperty(raw, '__proto__')
  return Object.freeze(raw)
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
