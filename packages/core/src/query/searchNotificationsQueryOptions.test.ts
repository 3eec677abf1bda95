import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Live, accounts, startLive } from '@solver-notifications/test-support'
import { createNotificationsClient } from '../client/createNotificationsClient.js'
import { createConfig } from '../config/createConfig.js'
import { searchNotificationsInfiniteQueryOptions } from './searchNotificationsInfiniteQueryOptions.js'
import { searchNotificationsQueryKey, searchNotificationsQueryOptions } from './searchNotificationsQueryOptions.js'

let live: Live
beforeEach(async () => {
  live = await startLive()
})
afterEach(() => live.stop())

it('keys are serializable, stable, with defaults applied', () => {
  const a = searchNotificationsQueryOptions(live.client, { solverId: 'beta', account: accounts[0] }).queryKey
  const b = searchNotificationsQueryOptions(live.client, { account: accounts[0], solverId: 'beta', size: 100, start: 0, chainId: 42161 }).queryKey
  expect(a).toEqual(['solver-notifications', 'search', { account: accounts[0], chainId: 42161, size: 100, solverId: 'beta', start: 0 }])
  expect(JSON.stringify(a)).toBe(JSON.stringify(b))
  expect(JSON.parse(JSON.stringify(a))).toEqual(a)
  expect(searchNotificationsQueryOptions(live.client, {}).queryKey[2]).toEqual({ chainId: 42161, solverId: 'alpha', start: 0 })
  expect(searchNotificationsQueryKey({ quoteId: 1, account: undefined })).toEqual(['solver-notifications', 'search', { quoteId: 1, start: 0 }])
})

it('the query function searches and forwards the abort signal', async () => {
  await live.rasa.instantOpen(accounts[0])
  const options = searchNotificationsQueryOptions(live.client, { solverId: 'beta', account: accounts[0] })
  expect(options.retry).toBe(false)
  const result = await options.queryFn({ signal: new AbortController().signal })
  expect([result.kind, result.count]).toEqual(['rasa', 1])
  const controller = new AbortController()
  controller.abort()
  await expect(options.queryFn({ signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED', name: 'ServiceRequestError' })
})

it('an unknown chain or solver does not throw while building options (adapters build them during render): the query fails with it', async () => {
  const client = createNotificationsClient({ config: createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'r', solvers: { r: { url: 'https://r.example', notifications: { protocol: 'rasa', url: 'wss://r.example/ws' } } } } } }) })
  const options = searchNotificationsQueryOptions(client, { solverId: 'nope' as never })
  expect(options.queryKey[2]).toEqual({ solverId: 'nope', start: 0 })
  await expect(options.queryFn({ signal: new AbortController().signal })).rejects.toMatchObject({ code: 'UNKNOWN_SOLVER' })
  expect(() => searchNotificationsQueryOptions(client, { chainId: 5 } as never)).not.toThrow()
  client.close()
})

it('infinite search options walk the pages by 100 (or size) until the count, forwarding the signal', async () => {
  for (let i = 0; i < 5; i++) await live.rasa.instantOpen(accounts[0]) // 5 latest states
  const options = searchNotificationsInfiniteQueryOptions(live.client, { solverId: 'beta', account: accounts[0], size: 2 })
  expect(options.queryKey).toEqual(['solver-notifications', 'search-pages', { account: accounts[0], chainId: 42161, size: 2, solverId: 'beta', start: 0 }])
  const starts: number[] = []
  let start: number | undefined = options.initialPageParam
  const pages = []
  while (start !== undefined) {
    starts.push(start)
    const page = await options.queryFn({ signal: new AbortController().signal, pageParam: start })
    pages.push(page.rows.length)
    start = options.getNextPageParam(page, pages, start)
  }
  expect([starts, pages]).toEqual([
    [0, 2, 4],
    [2, 2, 1],
  ])
})
