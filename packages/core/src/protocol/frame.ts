import type { Address } from '../utils/address.js'
import type { RawPositionNotification } from './rawNotification.js'

/**
 * One notification frame as its protocol's codec read it, whether from the socket or from a stored
 * history row. The codec reads its own wire here (envelopes, sentinels, where the ids are), so code
 * outside its folder reads only these fields; routing reads `address` and `account` off it. `raw` is sealed (see {@link sealRaw}) when the library
 * parsed it; `address` is the account the wire names (undefined when it names none); `quote` and
 * `temp` are the on-chain and temporary quote ids as this protocol carries them (null when absent).
 * A protocol may add fields of its own (its `Frame` type).
 */
export interface WireFrame {
  readonly kind: 'frame'
  readonly raw: RawPositionNotification
  readonly address: string | undefined
  /**
   * The account a notification of this frame carries, read off the wire by its codec (enigma: the
   * envelope's, with a `0X` prefix normalized); absent: the account of the subscription it reached
   * (rasa stamps it). Read once at decode, so routing and normalizing never ask the codec again.
   */
  readonly account?: Address | undefined
  readonly quote: number | null
  readonly temp: number | null
  /** rasa's own `order_type`, as its codec read it (absent is null). */
  readonly orderType?: number | null
  /** enigma's own `version`, `va_address` and `failure_message`, as its codec read them (absent is null). */
  readonly version?: number | null
  readonly vaAddress?: string | null
  readonly failureMessage?: string | null
  /** What this protocol writes for "no value" in amounts, prices and `error_code` (rasa: the number 0), read as null. */
  readonly none?: unknown
}



/** What a codec makes of one inbound text frame: a frame, or why there is none. */
export type DecodedFrame<F extends WireFrame = WireFrame> = F | { readonly kind: 'control' } | { readonly kind: 'malformed'; readonly reason: string } | { readonly kind: 'oversize' }

const CONTROL: { readonly kind: 'control' } = /* @__PURE__ */ Object.freeze({ kind: 'control' })
const OVERSIZE: { readonly kind: 'oversize' } = /* @__PURE__ */ Object.freeze({ kind: 'oversize' })
export const controlFrame = () => CONTROL
export const oversizeFrame = () => OVERSIZE

/** A number field, else null. */
export const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null)
/** A string field, else null. */
export const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null)

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
