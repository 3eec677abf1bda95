import { describe, expect, it } from 'vitest'
import { createConfig } from '../config/createConfig.js'
import { isSolverId } from '../config/isSolverId.js'
import { createNotificationsClient } from './createNotificationsClient.js'

// Every bad parameter is a ServiceError with its code (UNKNOWN_CHAIN, INVALID_PARAMETERS), even values
// that cannot become a string or a property key (an object without a prototype makes String() and `in`
// throw a TypeError).

const config = createConfig({
  defaultChainId: 1,
  chains: { 1: { defaultSolver: 'r', solvers: { r: { url: 'http://127.0.0.1:9', notifications: { protocol: 'rasa', url: 'ws://127.0.0.1:9/ws' } } } } },
})
const account = '0xAbC0000000000000000000000000000000000001'
const bare = () => Object.create(null) as never

describe('parameters without a prototype', () => {
  const client = createNotificationsClient({ config })

  it.each([
    ['notifications', () => client.notifications({ account, chainId: bare() })],
    ['events', () => client.events({ account, chainId: bare() })],
    ['status', () => client.status({ account, chainId: bare() })],
    ['quotes', () => client.quotes({ account, chainId: bare() })],
  ])('%s: a chainId without a prototype is UNKNOWN_CHAIN at the call, naming the configured chains', (_, call) => {
    expect(call).toThrowError(expect.objectContaining({ name: 'ServiceError', code: 'UNKNOWN_CHAIN', message: expect.stringContaining('Chain a object is not configured. Configured chains: 1') }))
  })

  it('search and waitFor reject with a ServiceError (no request, no TypeError)', async () => {
    await expect(client.search({ account, chainId: bare() })).rejects.toMatchObject({ code: 'UNKNOWN_CHAIN' })
    await expect(client.waitFor({ account, chainId: bare(), quoteId: 1 }, { until: 'open' })).rejects.toMatchObject({ code: 'UNKNOWN_CHAIN' })
    await expect(client.search({ account, size: bare() })).rejects.toMatchObject({ code: 'INVALID_PARAMETERS' })
  })

  it.each([
    ['resume.since', () => client.notifications({ account }, { resume: { since: bare() } })],
    ['resume.maxBackfillRows', () => client.notifications({ account }, { resume: { maxBackfillRows: bare() } })],
    ['resume.poll.intervalMs', () => client.notifications({ account }, { resume: { poll: { intervalMs: bare() } } })],
    ['highWaterMark', () => client.notifications({ account }, { highWaterMark: bare() })],
    ['quotes maxSnapshotRows', () => client.quotes({ account }, { maxSnapshotRows: bare() })],
  ])('%s without a prototype is INVALID_PARAMETERS naming it', (name, call) => {
    expect(call).toThrowError(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining(name.split(' ').at(-1)!.split('.').at(-1)!) }))
  })

  it('options of the client without a prototype are INVALID_PARAMETERS', () => {
    expect(() => createNotificationsClient({ config, lingerMs: bare() })).toThrowError(expect.objectContaining({ name: 'ServiceError' }))
  })

  it('isSolverId answers false for a chainId without a prototype', () => {
    expect(isSolverId(config, 'r', bare())).toBe(false)
    expect(isSolverId(config, 'r', 1)).toBe(true)
  })
})
