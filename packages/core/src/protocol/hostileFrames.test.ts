import { describe, expect, it } from 'vitest'
import { enigmaData, enigmaEnvelope, rasaAnchored } from '../../test/fixtures.js'
import { parseNotificationFrame } from './parseNotificationFrame.js'
import { normalizeNotification } from './normalizeNotification.js'

const text = (value: unknown) => JSON.stringify(value)
const ctx = { protocol: 'rasa', chainId: 1, solverId: 's', account: '0xAbC0000000000000000000000000000000000001' } as const

describe('each protocol checks only its own fields (docs/protocols.md, "Raw frame fields")', () => {
  it.each([
    ['rasa keeps enigma-only fields of any type', 'rasa', text({ ...rasaAnchored, version: 'v3', va_address: 7, failure_message: { x: 1 } })],
    ['enigma keeps rasa-only fields of any type', 'enigma', text({ ...enigmaEnvelope, data: { ...enigmaData, order_type: 'limit' } })],
  ] as const)('%s', (_name, protocol, frame) => {
    expect(parseNotificationFrame(frame, protocol)).not.toBeNull()
  })

  it.each([
    ['rasa order_type', 'rasa', text({ ...rasaAnchored, order_type: 'limit' })],
    ['enigma version', 'enigma', text({ ...enigmaEnvelope, data: { ...enigmaData, version: 'v3' } })],
    ['rasa base field', 'rasa', text({ ...rasaAnchored, modify_time: '12' })],
  ] as const)('its own known fields of the wrong type stay malformed: %s', (_name, protocol, frame) => {
    expect(parseNotificationFrame(frame, protocol)).toBeNull()
  })
})

describe('raw is a frozen value without own __proto__ keys', () => {
  it.each([
    ['rasa', '{"quote_id":1,"__proto__":{"polluted":true},"extra":1}'],
    ['enigma', '{"address":"0x1","data":{"quote_id":1,"__proto__":{"polluted":true},"extra":1}}'],
  ] as const)('%s', (protocol, frame) => {
    const raw = parseNotificationFrame(frame, protocol)!
    expect(Object.isFrozen(raw)).toBe(true)
    expect(Object.hasOwn(raw, '__proto__')).toBe(false)
    expect(raw.extra).toBe(1)
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
    const n = normalizeNotification(raw, ctx)
    expect(Object.isFrozen(n.raw)).toBe(true)
  })

  it('normalizeNotification keeps a caller-owned raw object as it was given (n.raw === raw) and touches nothing of it', () => {
    const text = '{"quote_id":3,"__proto__":{"x":1},"nested":{"a":[1,2]}}'
    const mine = JSON.parse(text)
    const n = normalizeNotification(mine, ctx)
    expect(n.raw).toBe(mine)
    expect(Object.isFrozen(mine)).toBe(false)
    expect(Object.isFrozen(mine.nested)).toBe(false)
    expect(JSON.stringify(mine)).toBe(JSON.stringify(JSON.parse(text)))
    // Known fields only were read: the hostile key reached nothing.
    expect(n.quoteId).toBe(3)
    expect(Object.hasOwn(n, 'x')).toBe(false)
    expect(({} as { x?: number }).x).toBeUndefined()
    expect(Object.isFrozen(n)).toBe(true)
  })
})
