import { describe, expect, it } from 'vitest'
import { CHANNEL, enigmaData, enigmaEnvelope, rasaAnchored, rasaPreChain } from '../../test/fixtures.js'
import { enigmaProtocol as enigmaDriver } from './enigma/enigmaProtocol.js'
import { parseNotificationFrame } from './parseNotificationFrame.js'
import { rasaProtocol as rasaDriver } from './rasa/rasaProtocol.js'

const text = (value: unknown) => JSON.stringify(value)

describe('enigma frames', () => {
  it('unwraps the envelope and keeps the envelope address as the frame account', () => {
    const decoded = enigmaDriver.decode(text(enigmaEnvelope), 1 << 20)
    expect(decoded).toMatchObject({ kind: 'frame', raw: enigmaData, address: enigmaEnvelope.address, quote: 9565, temp: -12 })
  })

  it('takes the ids from the envelope when the data lacks them', () => {
    const { quote_id: _q, temp_quote_id: _t, ...bare } = enigmaData
    const decoded = enigmaDriver.decode(text({ ...enigmaEnvelope, data: bare }), 1 << 20)
    expect(decoded).toMatchObject({ kind: 'frame', quote: 9565, temp: -12 })
  })

  it('parses `data` sent as a JSON string', () => {
    const raw = parseNotificationFrame(text({ ...enigmaEnvelope, data: JSON.stringify(enigmaData) }), 'enigma')
    expect(raw).toEqual(enigmaData)
  })

  it.each([
    ['ack', '{"ack":true}'],
    ['keepalive', '{"type":"keepalive","app_name":"X"}'],
    ['array', '[1,2]'],
    ['null', 'null'],
    ['number', '42'],
    ['data is a number', text({ app_name: CHANNEL, data: 5 })],
    ['data is an array', text({ app_name: CHANNEL, data: [] })],
    ['data string of an array', text({ app_name: CHANNEL, data: '[1]' })],
  ])('%s is a control frame', (_name, frame) => {
    expect(enigmaDriver.decode(frame, 1 << 20)).toEqual({ kind: 'control' })
    expect(parseNotificationFrame(frame, 'enigma')).toBeNull()
  })

  it.each([
    ['not JSON', 'hello', 'not JSON'],
    ['data string not JSON', text({ app_name: CHANNEL, data: '{oops' }), '`data` is a string that is not JSON'],
    ['quote_id as string', text({ ...enigmaEnvelope, data: { ...enigmaData, quote_id: 'abc' } }), 'field `quote_id` has the wrong type'],
    ['version as string', text({ ...enigmaEnvelope, data: { ...enigmaData, version: 'v3' } }), 'field `version` has the wrong type'],
  ])('%s is malformed', (_name, frame, reason) => {
    expect(enigmaDriver.decode(frame, 1 << 20)).toEqual({ kind: 'malformed', reason })
    expect(parseNotificationFrame(frame, 'enigma')).toBeNull()
  })

  it('keeps unknown extra fields', () => {
    const raw = parseNotificationFrame(text({ ...enigmaEnvelope, data: { ...enigmaData, brand_new: { x: 1 } } }), 'enigma')
    expect(raw?.brand_new).toEqual({ x: 1 })
  })
})

describe('rasa frames', () => {
  it('parses bare frames before and after anchoring', () => {
    expect(parseNotificationFrame(text(rasaPreChain), 'rasa')).toEqual(rasaPreChain)
    const decoded = rasaDriver.decode(text(rasaAnchored), 1 << 20)
    expect(decoded).toMatchObject({ kind: 'frame', address: rasaAnchored.counterparty_address })
  })

  it('accepts a frame with only temp_quote_id', () => {
    expect(parseNotificationFrame('{"temp_quote_id":-3}', 'rasa')).toEqual({ temp_quote_id: -3 })
  })

  it.each([['{"ack":true}'], ['{"quote_id":null}'], ['[]'], ['null'], ['"ping"'], ['{"address":["0x1"]}']])(
    '%s is a control frame',
    (frame) => {
      expect(rasaDriver.decode(frame, 1 << 20)).toEqual({ kind: 'control' })
    },
  )

  it('treats wrong known-field types and non-JSON as malformed', () => {
    expect(rasaDriver.decode('{"quote_id":"abc"}', 1 << 20)).toEqual({ kind: 'malformed', reason: 'field `quote_id` has the wrong type' })
    expect(rasaDriver.decode(text({ ...rasaAnchored, order_type: '1' }), 1 << 20)).toMatchObject({ kind: 'malformed' })
    expect(rasaDriver.decode(text({ ...rasaAnchored, error_code: true }), 1 << 20)).toMatchObject({ kind: 'malformed' })
    expect(rasaDriver.decode('{"quote_id":1,', 1 << 20)).toEqual({ kind: 'malformed', reason: 'not JSON' })
  })
})

describe('oversize frames', () => {
  it('drops frames over maxFrameBytes without parsing them, counting UTF-8 bytes', () => {
    const frame = text({ ...rasaAnchored, pad: 'x'.repeat(200) })
    expect(rasaDriver.decode(frame, frame.length)).toMatchObject({ kind: 'frame' })
    expect(rasaDriver.decode(frame, frame.length - 1)).toEqual({ kind: 'oversize' })
    expect(parseNotificationFrame(frame, 'rasa', { maxFrameBytes: 100 })).toBeNull()
    // 'é' is 2 UTF-8 bytes: 100 characters are 200 bytes.
    const wide = text({ quote_id: 1, pad: 'é'.repeat(100) })
    expect(enigmaDriver.decode(text({ data: { quote_id: 1 }, pad: 'é'.repeat(100) }), wide.length + 20)).toEqual({ kind: 'oversize' })
    expect(rasaDriver.decode(wide, wide.length + 100)).toMatchObject({ kind: 'frame' })
    expect(rasaDriver.decode(wide, wide.length + 99)).toEqual({ kind: 'oversize' })
  })
})

describe('hostile keys', () => {
  it('parsing __proto__ / constructor keys pollutes nothing', () => {
    const frame = '{"quote_id":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'
    const raw = parseNotificationFrame(frame, 'rasa')
    expect(raw).not.toBeNull()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.prototype).not.toHaveProperty('polluted')
  })
})
