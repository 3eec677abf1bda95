import { expect, it } from 'vitest'
import { buildEnigmaSubscribeFrame } from './enigma/buildEnigmaSubscribeFrame.js'
import { buildRasaSubscribeFrame } from './rasa/buildRasaSubscribeFrame.js'

it('builds the enigma channel_patterns frame with the account as given', () => {
  const text = buildEnigmaSubscribeFrame({ account: '0xAbC0000000000000000000000000000000000001', channel: 'Chan' })
  expect(text).toBe(
    '{"channel_patterns":[{"app_name":"Chan","address":"0xAbC0000000000000000000000000000000000001","primary_identifier":"*","secondary_identifier":"*"}]}',
  )
})

it('builds the rasa list deduplicated case-insensitively, first casing and order kept', () => {
  const a = '0xAAAA000000000000000000000000000000000001'
  const b = '0x000000000000000000000000000000000000000B'
  expect(JSON.parse(buildRasaSubscribeFrame([a, b, a.toLowerCase(), b.toLowerCase()]))).toEqual({ address: [a, b] })
  expect(buildRasaSubscribeFrame([])).toBe('{"address":[]}')
})
