import { describe, expectTypeOf, it } from 'vitest'
import { createConfig } from '../config/createConfig.js'
import { createNotificationsClient } from '../client/createNotificationsClient.js'
import type { EnigmaSearchResult, NotificationSearchResult, RasaSearchResult } from './types.js'

const config = createConfig({
  defaultChainId: 42161,
  chains: {
    42161: {
      defaultSolver: 'alpha',
      solvers: {
        alpha: { notifications: { protocol: 'enigma', url: 'wss://a.example/ws', channel: 'C', searchUrl: 'https://a.example/n' } },
        beta: { url: 'https://b.example', notifications: { protocol: 'rasa', url: 'wss://b.example/ws' } },
      },
    },
  },
})
const client = createNotificationsClient({ config })

describe('search result narrowing', () => {
  it('a literal solverId selects the protocol result without a kind check', () => {
    expectTypeOf(client.search({ solverId: 'beta' })).resolves.toEqualTypeOf<RasaSearchResult>()
    expectTypeOf(client.search({ solverId: 'alpha' })).resolves.toEqualTypeOf<EnigmaSearchResult>()
    expectTypeOf(client.search({})).resolves.toEqualTypeOf<NotificationSearchResult>()
  })

  it('a parameter of the other protocol is a type error', () => {
    // @ts-expect-error rasa has no filter
    client.search({ solverId: 'beta', filter: { x: 1 } })
    // @ts-expect-error rasa has no tempQuoteId
    client.search({ solverId: 'beta', tempQuoteId: -1 })
    // @ts-expect-error enigma has no timestampGte
    client.search({ solverId: 'alpha', timestampGte: 1 })
    // @ts-expect-error not a configured solver
    client.search({ solverId: 'gamma' })
    client.search({ solverId: 'alpha', filter: { 'data.action_status': 'failed' }, tempQuoteId: -1 })
    client.search({ solverId: 'beta', timestampGte: 1 })
  })

  it('pages narrow the same way', () => {
    expectTypeOf(client.searchPages({ solverId: 'beta' })).toEqualTypeOf<AsyncIterable<RasaSearchResult>>()
  })
})

describe('query options narrowing', () => {
  it('searchNotificationsQueryOptions keeps the narrowing by a literal solverId', async () => {
    const { searchNotificationsQueryOptions } = await import('../query/searchNotificationsQueryOptions.js')
    const rasa = searchNotificationsQueryOptions(client, { solverId: 'beta' })
    expectTypeOf(rasa.queryFn).returns.resolves.toEqualTypeOf<RasaSearchResult>()
    const any = searchNotificationsQueryOptions(client, {})
    expectTypeOf(any.queryFn).returns.resolves.toEqualTypeOf<NotificationSearchResult>()
  })
})
