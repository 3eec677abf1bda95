import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, expect, it } from 'vitest'

let live: Live
afterEach(() => live?.stop())

it.each(['enigma', 'rasa'] as const)('%s: the logger hears dials, opens, closes with their code, backfills and dropped frames, with URLs redacted', async (protocol) => {
  const lines: Array<[string, string, Record<string, unknown>]> = []
  const at = (level: string) => (message: string, fields: Record<string, unknown>) => void lines.push([level, message, fields])
  live = await startLive({ logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, reconnect: { baseDelayMs: 50 } })
  const solverId = live.solverOf[protocol]
  const events = record(live.client.events({ account: accounts[0], solverId }, { resume: true }))
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  await live.sims[protocol].waitForSubscribers(accounts[0])
  await live.sims[protocol].sendRaw('{not json')
  await live.sims[protocol].dropAll(4000)
  await events.until((v) => v.some((e) => e.type === 'status' && e.backfill?.state === 'finished'))
  const messages = lines.map(([level, message]) => `${level} ${message}`)
  expect(messages.filter((m) => m.includes('socket'))).toEqual(['debug socket connecting', 'info socket open', 'warn socket reconnecting', 'debug socket connecting', 'info socket open'])
  expect(messages).toContain('debug frame dropped')
  expect(lines.find(([, m]) => m === 'frame dropped')![2]).toMatchObject({ reason: 'malformed' })
  expect(lines.find(([, m]) => m === 'socket reconnecting')![2]).toMatchObject({ closeCode: 4000, attempt: 1, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1/) })
  expect(messages.indexOf('debug backfill started')).toBeLessThan(messages.lastIndexOf('info backfill finished'))
  expect(lines.find(([, m]) => m === 'backfill finished')![2]).toMatchObject({ recovered: expect.any(Number), stream: expect.stringContaining(solverId) })
})

it('a logger that is not an object is INVALID_CONFIG; console works as is', async () => {
  live = await startLive({ logger: console })
  const { createNotificationsClient } = await import('./createNotificationsClient.js')
  expect(() => createNotificationsClient({ config: live.config, logger: 'loud' as never })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringContaining('logger') }))
})
