import { protocols as drivers } from '../src/protocol/protocols.js'
import { normalizeFrame } from '../src/protocol/normalizeNotification.js'
import type { Protocol } from '../src/protocol/types.js'
import { ACCOUNT_A, ACCOUNT_B, enigmaEnvelope, rasaAnchored } from '../test/fixtures.js'
import { compare, report } from './measure.js'

/** B1: text frame → delivered Notification vs bare JSON.parse of the same frames. */
export function runB1(): boolean {
  const count = 20_000
  let ok = true
  for (const protocol of ['enigma', 'rasa'] as Protocol[]) {
    const frames: string[] = []
    for (let i = 0; i < count; i++) {
      frames.push(
        protocol === 'enigma'
          ? JSON.stringify({ ...enigmaEnvelope, primary_identifier: i, data: { ...enigmaEnvelope.data, quote_id: i, modify_time: 1_763_700_000 + i } })
          : JSON.stringify({ ...rasaAnchored, quote_id: i, modify_time: 1_763_700_000 + i }),
      )
    }
    const driver = drivers[protocol]
    const account = protocol === 'enigma' ? ACCOUNT_A : ACCOUNT_B
    let sink: unknown
    const result = compare(
      `B1 ${protocol}`,
      () => {
        for (let i = 0; i < frames.length; i++) {
          const decoded = driver.decode(frames[i]!, 1_048_576)
          if (decoded.kind !== 'frame') throw new Error('bench frame did not decode')
          sink = normalizeFrame(decoded, protocol, 42161, 's', account, 'live')
        }
        return frames.length
      },
      () => {
        for (let i = 0; i < frames.length; i++) sink = JSON.parse(frames[i]!)
        return frames.length
      },
    )
    void sink
    const pass = result.ratio >= 0.6
    ok &&= pass
    report('B1', `pipeline ${protocol} (decode + validate + normalize)`, result, '≥ 0.60×', pass)
  }
  return ok
}
