import { expect, it } from 'vitest'
import { RepeatedLines } from './RepeatedLines.js'

it('a thousand occurrences in a second are one line, counted by cause, with the first one as the example', () => {
  const lines: Array<{ fields: object; message: string }> = []
  const logger = { debug() {}, info() {}, error() {}, warn: (fields: object, message: string) => lines.push({ fields, message }) }
  const repeated = new RepeatedLines(logger, 60_000)
  for (let p = 0; p < 1_024; p++) repeated.add('lost partitions; their accounts stopped', p < 4 ? 'taken by another relay' : 'lease not renewed', { partition: p })
  for (let i = 0; i < 3; i++) repeated.add('publishes failed, retrying', 'no-stream', { account: `a${i}` })
  expect(lines).toEqual([])
  repeated.flush()
  expect(lines.map((l) => l.message)).toEqual([
    'lost partitions; their accounts stopped: 1024 in 1 s (lease not renewed × 1020, taken by another relay × 4)',
    'publishes failed, retrying: 3 in 1 s (no-stream × 3)',
  ])
  expect(lines[0]!.fields).toMatchObject({ partition: 0, count: 1_024 })
  repeated.flush()
  expect(lines).toHaveLength(2)
})
