import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, expect, it, vi } from 'vitest'

let live: Live
afterEach(() => live?.stop())

it.each(['enigma', 'rasa'] as const)('%s: the logger hears dials, opens, closes with their code, backfills and dropped frames, with URLs redacted', async (protocol) => {
  const lines: Array<[string, string, Record<string, unknown>]> = []
  const at = (level: string) => (message: string, fields: Record<string, unknown>) => void lines.push([level, message, fields])
  live = await startLive({ logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, reconnect: { baseDelayMs: 50 } })
  const solverId = live.solverOf[protocol]
  const events = record(live.client.events({ account: accounts[0], solverId }, { resume: true }))
  const finishedCount = (v: typeof events.values) => v.filter((e) => e.type === 'status' && e.backfill?.state === 'finished').length
  await events.until((v) => finishedCount(v) === 1) // the first open's backfill (from subscribing)
  await live.sims[protocol].waitForSubscribers(accounts[0])
  await live.sims[protocol].sendRaw('{not json')
  await live.sims[protocol].dropAll(4000)
  await events.until((v) => finishedCount(v) === 2)
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

it.each([
  ['every method throws', { debug: 'x', info: 'x', warn: 'x', error: 'x' }],
  ['only warn throws', { warn: 'x' }],
] as const)('a logger that throws can never hurt a stream (%s): delivered, reconnected, closed; one console warning', async (_name, throwing) => {
  const boom = () => {
    throw new Error('logger down')
  }
  const logger = Object.fromEntries(['debug', 'info', 'warn', 'error'].map((level) => [level, level in throwing ? boom : () => {}]))
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    live = await startLive({ logger, reconnect: { baseDelayMs: 20 } })
    const solverId = live.solverOf.rasa
    const events = record(live.client.events({ account: accounts[0], solverId }, { resume: true }))
    await events.until((v) => v.some((e) => e.type === 'status' && e.backfill?.state === 'finished')) // the first open's backfill
    await live.sims.rasa.waitForSubscribers(accounts[0])
    await live.sims.rasa.instantOpen(accounts[0])
    await events.until((v) => v.filter((e) => e.type === 'notification').length === 3)
    await live.sims.rasa.dropAll(1012)
    await events.until((v) => v.filter((e) => e.type === 'status' && e.status === 'open' && !e.backfill).length === 2)
    await live.sims.rasa.waitForSubscribers(accounts[0])
    await live.sims.rasa.instantOpen(accounts[0])
    await events.until((v) => v.filter((e) => e.type === 'notification').length === 6)
    expect(() => live.client.close()).not.toThrow()
    expect(events.completed).toBe(true)
    expect(warn.mock.calls.filter(([m]) => String(m).includes('the logger threw'))).toHaveLength(1)
  } finally {
    warn.mockRestore()
  }
})

it('repeated lines are summed up: 5,000 malformed frames are a handful of lines, each saying how many', async () => {
  const lines: Array<[string, Record<string, unknown>]> = []
  live = await startLive({ logger: { debug: (m: string, f: Record<string, unknown>) => void lines.push([m, f]) } })
  const solverId = live.solverOf.rasa
  const events = record(live.client.events({ account: accounts[0], solverId }))
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  await live.sims.rasa.waitForSubscribers(accounts[0])
  await Promise.all(Array.from({ length: 5_000 }, (_, i) => live.sims.rasa.sendRaw(`{not json ${i}`)))
  await vi.waitFor(() => expect(live.client.stats().frames.dropped.malformed).toBe(5_000), { timeout: 20_000 })
  // the window of the last lines ends within a second: their summary follows
  await vi.waitFor(() => expect(lines.filter(([m]) => m.startsWith('frame dropped')).reduce((n, [, f]) => n + Number(f.repeated ?? 1), 0)).toBe(5_000), { timeout: 5_000 })
  const dropped = lines.filter(([m]) => m.startsWith('frame dropped'))
  expect(dropped.length).toBeLessThan(50)
  expect(dropped[1]?.[0]).toMatch(/^frame dropped: [\d,]+ more, last \d\.\d s$/)
}, 30_000)
