import { expect, it } from 'vitest'
import { createRelayLogger } from './relayLogger.js'

const capture = () => {
  const lines: string[] = []
  return { lines, destination: { write: (line: string) => void lines.push(line) } }
}

it('json: one object per line with time, level, instance and msg; every string redacted, fields included', () => {
  const { lines, destination } = capture()
  const logger = createRelayLogger({ instance: 'r1', destination })
  logger.info({ nats: ['nats://admin:S3CRET@10.0.0.5:4222'], nested: { url: 'wss://s.example/ws?token=S3CRET' } }, 'connecting to nats://admin:S3CRET@10.0.0.5:4222')
  logger.debug({}, 'not at info')
  expect(lines).toHaveLength(1)
  const record = JSON.parse(lines[0]!)
  expect(record).toMatchObject({ level: 'info', instance: 'r1', msg: 'connecting to nats://***@10.0.0.5:4222', nats: ['nats://***@10.0.0.5:4222'], nested: { url: 'wss://s.example/ws?token=***' } })
  expect(Number.isNaN(Date.parse(record.time))).toBe(false)
  expect(lines[0]).not.toContain('S3CRET')
})

it('pretty: a human line (clock, level, instance, message, fields); --log-level filters', () => {
  const { lines, destination } = capture()
  const logger = createRelayLogger({ instance: 'r2', format: 'pretty', level: 'warn', destination })
  logger.info({}, 'hidden')
  logger.warn({ account: '1.beta.0xabc', attempts: 2 }, 'lost the lease')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN {2}r2 lost the lease account=1\.beta\.0xabc attempts=2\n$/)
})
