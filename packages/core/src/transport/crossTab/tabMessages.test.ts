import { expect, it } from 'vitest'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import { ServiceError } from '../../errors/ServiceError.js'
import { sealRaw } from '../../protocol/frame.js'
import { protocolOf } from '../../protocol/protocols.js'
import { capDelay } from '../../utils/capDelay.js'
import { contentKey } from '../../protocol/notificationKey.js'
import { TAB_MESSAGE_KINDS, TAB_PROTOCOL, parseTabMessage as parseWith, tabNames } from './tabMessages.js'

const parseTabMessage = (data: unknown) => parseWith(data, { ServiceError, sealRaw, protocolOf, capDelay, contentKey })

const account = '0xAbC0000000000000000000000000000000000001'
const base = () => ({ ...normalizeNotification({ id: 'x', quote_id: 5, modify_time: 1_763_700_000, action_status: 'success' }, { protocol: 'rasa', chainId: 1, solverId: 's', account }) })
const message = (n: unknown) => ({ v: TAB_PROTOCOL, t: 'n', tab: 'leader', to: 'me', sid: 's1', n })

it('forwards every plain field of a notification, a field a protocol added included', () => {
  const n = { ...base(), venue: 'toy-venue', leverage: 3 }
  const parsed = parseTabMessage(structuredClone(message(n)))
  expect(parsed?.t).toBe('n')
  const forwarded = (parsed as unknown as { n: Record<string, unknown> }).n
  expect(forwarded.venue).toBe('toy-venue')
  expect(forwarded.leverage).toBe(3)
  for (const [key, value] of Object.entries(base())) if (key !== 'raw') expect(forwarded[key]).toEqual(value)
  expect(Object.isFrozen(forwarded)).toBe(true)
})

it('refuses forged types, nested values, and never copies prototype keys', () => {
  expect(parseTabMessage(message({ ...base(), modifyTime: 'soon' }))).toBeUndefined()
  expect(parseTabMessage(message({ ...base(), quoteId: '5' }))).toBeUndefined()
  expect(parseTabMessage(message({ ...base(), extra: { nested: true } }))).toBeUndefined()
  const evil = JSON.parse(JSON.stringify({ ...base(), ['__proto__']: 1 }).replace('"raw"', '"__proto__":{"polluted":true},"raw"'))
  const parsed = parseTabMessage(message(evil)) as { n: Record<string, unknown> } | undefined
  expect(parsed?.n.polluted).toBeUndefined()
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
})

it('a history answer from the leader is checked like forwarded notifications: one forged row refuses it all; errors keep their Retry-After', () => {
  const answer = (notifications: unknown[]) => ({ v: TAB_PROTOCOL, t: 'hr', tab: 'leader', to: 'me', rid: 'r1', answer: { ok: true, notifications, truncated: undefined, foreign: 0, overlong: 0 } })
  const ok = parseTabMessage(structuredClone(answer([base(), base()]))) as { answer: { ok: true; notifications: unknown[] } } | undefined
  expect(ok?.answer.notifications).toHaveLength(2)
  expect(parseTabMessage(answer([base(), { ...base(), modifyTime: 'soon' }]))).toBeUndefined()
  expect(parseTabMessage({ ...answer([]), answer: { ok: true, notifications: [], truncated: { left: 'many' }, foreign: 0, overlong: 0 } })).toBeUndefined()
  const failed = parseTabMessage({ v: TAB_PROTOCOL, t: 'hr', tab: 'leader', to: 'me', rid: 'r2', answer: { ok: false, error: { code: 'HTTP_STATUS', message: 'busy', retryAfterMs: 3000 } } })
  expect(failed).toMatchObject({ answer: { ok: false, error: { code: 'HTTP_STATUS', retryAfterMs: 3000 } } })
  // An ask needs every field of its read.
  expect(parseTabMessage({ v: TAB_PROTOCOL, t: 'hq', tab: 'f', to: 'leader', rid: 'r3', chainId: 1, solverId: 's', account, since: 'now', maxRows: 10 })).toBeUndefined()
  expect(parseTabMessage({ v: TAB_PROTOCOL, t: 'hq', tab: 'f', to: 'leader', rid: 'r3', chainId: 1, solverId: 's', account, since: 5, maxRows: 10, poll: 300 })?.t).toBe('hq')
})

it('the tab protocol version changes whenever a message is added: this golden list fails until TAB_PROTOCOL is raised with it', () => {
  // A message added (or changed) without a new version: tabs of two releases would share a lock and
  // one would drop what it does not know while the other waits (an old leader starving a new tab).
  expect({ version: TAB_PROTOCOL, kinds: TAB_MESSAGE_KINDS }).toEqual({ version: 2, kinds: ['beat', 'leader', 'bye', 'handoff', 'sub', 'unsub', 'n', 'e', 'c', 'hq', 'hr'] })
  // Tabs of another version elect and talk apart; version 1 named its lock and channel without one.
  expect(tabNames('default')).toBe('solver-notifications:default:v2')
  expect(tabNames('default')).not.toBe('solver-notifications:default')
})

it('a message of another version is foreign, whatever its kind', () => {
  for (const v of [1, 3, '2', undefined]) expect(parseTabMessage({ v, t: 'leader', tab: 'x' })).toBeUndefined()
  expect(parseTabMessage({ v: TAB_PROTOCOL, t: 'leader', tab: 'x' })?.t).toBe('leader')
})
