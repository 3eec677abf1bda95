import { describe, expect, it } from 'vitest'
import { enigmaProtocol } from './enigma/enigmaProtocol.js'
import { normalizeFrame } from './normalizeNotification.js'
import { rasaProtocol } from './rasa/rasaProtocol.js'

const wire = '0XABC0000000000000000000000000000000000001'
const subscribed = '0xabc0000000000000000000000000000000000001'

describe('a decoded frame carries its routing key and account (one codec visit per frame)', () => {
  it('enigma: the envelope address as sent routes it; the account is that address with 0x', () => {
    const frame = enigmaProtocol.decode(JSON.stringify({ address: wire, data: { quote_id: 5, modify_time: 9 } }), 1_000)
    expect(frame).toMatchObject({ kind: 'frame', address: wire, account: '0xABC0000000000000000000000000000000000001' })
    if (frame.kind !== 'frame') throw new Error('not a frame')
    expect(normalizeFrame(frame, 'enigma', 1, 's', subscribed, 'live').account).toBe('0xABC0000000000000000000000000000000000001')
  })

  it('enigma without an address, and rasa: the account is the subscription’s', () => {
    const enigma = enigmaProtocol.decode(JSON.stringify({ data: { quote_id: 5 } }), 1_000)
    const rasa = rasaProtocol.decode(JSON.stringify({ quote_id: 5, counterparty_address: wire }), 1_000)
    expect(enigma).toMatchObject({ kind: 'frame', address: undefined, account: undefined })
    expect(rasa).toMatchObject({ kind: 'frame', address: wire })
    expect((rasa as { account?: string }).account).toBeUndefined()
    if (enigma.kind !== 'frame' || rasa.kind !== 'frame') throw new Error('not a frame')
    expect(normalizeFrame(enigma, 'enigma', 1, 's', subscribed, 'live').account).toBe(subscribed)
    expect(normalizeFrame(rasa, 'rasa', 1, 's', subscribed, 'live').account).toBe(subscribed)
  })
})
