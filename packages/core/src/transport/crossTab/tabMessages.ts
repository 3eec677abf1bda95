import type { ServiceErrorCode } from '../../errors/ServiceError.js'
import { NUMBER_OR_NULL_FIELDS } from '../../protocol/notificationFields.js'
import type { Notification } from '../../protocol/types.js'
import type { CrossTabKit } from './CrossTabKit.js'
import type { TransportErrorEvent, TransportStatusEvent } from '../TransportEvent.js'

/**
 * Version of the messages tabs exchange. It changes whenever a message is added or changes (the
 * golden test in tabMessages.test.ts fails until it does): tabs of another version never share
 * (their locks and channel have other names, see `tabNames`), so a page of the previous release and a
 * page of this one each keep their own sockets instead of waiting on messages the other drops.
 * 1: the first cross-tab release; 2: history reads asked of the leader (`hq`/`hr`).
 */
export const TAB_PROTOCOL = 2

/** Every kind of message of this version, in the order they were added. */
export const TAB_MESSAGE_KINDS = ['beat', 'leader', 'bye', 'handoff', 'sub', 'unsub', 'n', 'e', 'c', 'hq', 'hr'] as const

/**
 * The lock and channel names of a cross-tab pool: the `name` option and the protocol version, so tabs
 * of another version elect and talk apart. Version 1 named them without a version.
 *
 * @example
 * tabNames('default') // 'solver-notifications:default:v2'
 */
export function tabNames(name: string): string {
  return `solver-notifications:${name}:v${TAB_PROTOCOL}`
}

type V = typeof TAB_PROTOCOL

/** Every message between tabs (docs/architecture.md, "Cross-tab"); `to` addresses one tab, the rest are for all. */
export type TabMessage =
  | { v: V; t: 'beat'; tab: string; visible: boolean; leader: boolean; once: string[] }
  | { v: V; t: 'leader'; tab: string }
  | { v: V; t: 'bye'; tab: string }
  | { v: V; t: 'handoff'; tab: string; to: string }
  | { v: V; t: 'sub'; tab: string; to: string; sid: string; chainId: number; solverId: string; account: string }
  | { v: V; t: 'unsub'; tab: string; to: string; sid: string }
  | { v: V; t: 'n'; tab: string; to: string; sid: string; n: Notification }
  | { v: V; t: 'e'; tab: string; to: string; sid: string; e: WireEvent }
  | { v: V; t: 'c'; tab: string; to: string; sid: string }
  /** a history read asked of the leader (one reader per stream key per browser) */
  | { v: V; t: 'hq'; tab: string; to: string; rid: string; chainId: number; solverId: string; account: string; since: number; maxRows: number; poll: number | undefined }
  /** its answer: what history had, or the error */
  | { v: V; t: 'hr'; tab: string; to: string; rid: string; answer: WireAnswer }

/** A history answer as it crosses tabs (an error travels as its code, message and Retry-After). */
export type WireAnswer =
  | { ok: true; notifications: Notification[]; truncated: { left: number } | undefined; foreign: number; overlong: number }
  | { ok: false; error: { code: string; message: string; retryAfterMs: number | undefined } }

/** A status or error event as it crosses tabs (an error travels as its code and message). */
export type WireEvent = TransportStatusEvent | { type: 'error'; error: { code: string; message: string } }

const STATUSES = new Set(['idle', 'connecting', 'open', 'reconnecting', 'closed'])
const TYPES = new Set(['success', 'failed', 'seen', 'unknown'])
const PHASES = new Set(['open', 'fill', 'close', 'cancel', 'liquidation', 'other'])
const SOURCES = new Set(['live', 'backfill'])

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown) => typeof v === 'string'

/** An event for the channel. */
export function toWire(event: TransportStatusEvent | TransportErrorEvent): WireEvent {
  return event.type === 'error' ? { type: 'error', error: { code: event.error.code, message: event.error.message } } : event
}

/**
 * Reads a message from the channel like a frame from a socket: anything foreign or malformed is
 * `undefined` (the caller drops and counts it), and what comes back is rebuilt from known fields only.
 */
export function parseTabMessage(data: unknown, kit: CrossTabKit): TabMessage | undefined {
  if (!isObject(data) || data.v !== TAB_PROTOCOL || !str(data.tab)) return undefined
  const addressed = str(data.to)
  switch (data.t) {
    case 'beat':
      return typeof data.visible === 'boolean' && typeof data.leader === 'boolean' && Array.isArray(data.once) && data.once.every(str)
        ? { v: TAB_PROTOCOL, t: 'beat', tab: data.tab as string, visible: data.visible, leader: data.leader, once: data.once as string[] }
        : undefined
    case 'leader':
    case 'bye':
      return { v: TAB_PROTOCOL, t: data.t, tab: data.tab as string }
    case 'handoff':
      return addressed ? { v: TAB_PROTOCOL, t: 'handoff', tab: data.tab as string, to: data.to as string } : undefined
    case 'sub':
      return addressed && str(data.sid) && typeof data.chainId === 'number' && str(data.solverId) && str(data.account)
        ? { v: TAB_PROTOCOL, t: 'sub', tab: data.tab as string, to: data.to as string, sid: data.sid as string, chainId: data.chainId, solverId: data.solverId as string, account: data.account as string }
        : undefined
    case 'unsub':
    case 'c':
      return addressed && str(data.sid) ? { v: TAB_PROTOCOL, t: data.t, tab: data.tab as string, to: data.to as string, sid: data.sid as string } : undefined
    case 'n': {
      const n = addressed && str(data.sid) ? readNotification(data.n, kit) : undefined
      return n ? { v: TAB_PROTOCOL, t: 'n', tab: data.tab as string, to: data.to as string, sid: data.sid as string, n } : undefined
    }
    case 'e': {
      const e = addressed && str(data.sid) ? readEvent(data.e) : undefined
      return e ? { v: TAB_PROTOCOL, t: 'e', tab: data.tab as string, to: data.to as string, sid: data.sid as string, e } : undefined
    }
    case 'hq':
      return addressed && str(data.rid) && typeof data.chainId === 'number' && str(data.solverId) && str(data.account) && typeof data.since === 'number' && typeof data.maxRows === 'number' && (data.poll === undefined || typeof data.poll === 'number')
        ? { v: TAB_PROTOCOL, t: 'hq', tab: data.tab as string, to: data.to as string, rid: data.rid as string, chainId: data.chainId, solverId: data.solverId as string, account: data.account as string, since: data.since, maxRows: data.maxRows, poll: data.poll as number | undefined }
        : undefined
    case 'hr': {
      const answer = addressed && str(data.rid) ? readAnswer(data.answer, kit) : undefined
      return answer ? { v: TAB_PROTOCOL, t: 'hr', tab: data.tab as string, to: data.to as string, rid: data.rid as string, answer } : undefined
    }
    default:
      return undefined
  }
}

/** A history answer from the channel, checked like forwarded notifications (one bad row refuses it all). */
function readAnswer(a: unknown, kit: CrossTabKit): WireAnswer | undefined {
  if (!isObject(a)) return undefined
  if (a.ok === false) {
    const e = a.error
    return isObject(e) && str(e.code) && str(e.message) ? { ok: false, error: { code: e.code as string, message: e.message as string, retryAfterMs: typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined } } : undefined
  }
  if (a.ok !== true || !Array.isArray(a.notifications) || typeof a.foreign !== 'number' || typeof a.overlong !== 'number') return undefined
  const truncated = a.truncated
  if (truncated !== undefined && !(isObject(truncated) && typeof truncated.left === 'number')) return undefined
  const notifications: Notification[] = []
  for (const n of a.notifications) {
    const read = readNotification(n, kit)
    if (!read) return undefined
    notifications.push(read)
  }
  return { ok: true, notifications, truncated: truncated === undefined ? undefined : { left: (truncated as { left: number }).left }, foreign: a.foreign, overlong: a.overlong }
}

/** The event a listener receives, rebuilt (errors become `ServiceError`s again). */
export function fromWire(e: WireEvent, kit: CrossTabKit): TransportStatusEvent | TransportErrorEvent {
  return e.type === 'error' ? { type: 'error', error: new kit.ServiceError(e.error.code as ServiceErrorCode, e.error.message) } : e
}

function readEvent(e: unknown): WireEvent | undefined {
  if (!isObject(e)) return undefined
  if (e.type === 'error') {
    const error = e.error
    return isObject(error) && str(error.code) && str(error.message) ? { type: 'error', error: { code: error.code as string, message: error.message as string } } : undefined
  }
  if (e.type !== 'status' || !STATUSES.has(e.status as string) || typeof e.attempt !== 'number') return undefined
  const out: { -readonly [K in keyof TransportStatusEvent]: TransportStatusEvent[K] } = { type: 'status', status: e.status as TransportStatusEvent['status'], attempt: e.attempt }
  if (typeof e.retryInMs === 'number') out.retryInMs = e.retryInMs
  if (typeof e.closeCode === 'number') out.closeCode = e.closeCode
  if (typeof e.closeReason === 'string') out.closeReason = e.closeReason
  return out
}

/** Fields every notification has, with their checks; the rest (a protocol's own included) travel as they are when they are plain values. */
const REQUIRED: Record<string, (v: unknown) => boolean> = {
  type: (v) => TYPES.has(v as string),
  phase: (v) => PHASES.has(v as string),
  source: (v) => SOURCES.has(v as string),
  quoteId: (v) => typeof v === 'number',
  chainId: (v) => typeof v === 'number',
  onChain: (v) => typeof v === 'boolean',
  account: str,
  solverId: str,
}
/** Keys never copied: they would reach the prototype of the rebuilt object. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype'])

function readNotification(n: unknown, kit: CrossTabKit): Notification | undefined {
  if (!isObject(n) || !isObject(n.raw) || kit.protocolOf(n.protocol) === undefined) return undefined
  for (const key in REQUIRED) if (!REQUIRED[key]!(n[key])) return undefined
  const out: Record<string, unknown> = {}
  // Every plain field is forwarded, whatever the protocol added: a follower tab sees what the leader saw.
  for (const key of Object.keys(n)) {
    const value = n[key]
    if (UNSAFE.has(key) || key === 'raw') continue
    // Known optional fields keep their types (a forged `modifyTime: "x"` is refused like a malformed frame).
    if (NUMBER_OR_NULL_FIELDS.has(key) && value !== null && typeof value !== 'number') return undefined
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value
    else if (value !== undefined) return undefined
  }
  // The raw frame was sealed in the leader; structured clone gave this tab its own copy to seal again.
  out.raw = kit.sealRaw(n.raw)
  return Object.freeze(out) as unknown as Notification
}
