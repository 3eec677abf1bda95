import { expect, it } from 'vitest'
import { normalizeNotification } from '../../protocol/normalizeNotification.js'
import { parseTabMessage } from './tabMessages.js'

const account = '0xAbC0000000000000000000000000000000000001'
const base = () => ({ ...normalizeNotification({ id: 'x', quote_id: 5, modify_time: 1_763_700_000, action_status: 'success' }, { protocol: 'rasa', chainId: 1, solverId: 's', account }) })
const message = (n: unknown) => ({ v: 1, t: 'n', tab: 'leader', to: 'me', sid: 's1', n })

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
