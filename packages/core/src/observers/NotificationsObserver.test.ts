import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { FakeWebSocket } from '../../test/FakeWebSocket.js'
import { createConfig } from '../config/createConfig.js'
import { createNotificationsClient } from '../client/createNotificationsClient.js'
import { NotificationsObserver } from './NotificationsObserver.js'

const A = '0xAbC0000000000000000000000000000000000001'
const B = '0xAbC0000000000000000000000000000000000002'
const config = createConfig({ defaultChainId: 1, chains: { 1: { defaultSolver: 'e', solvers: { e: { notifications: { protocol: 'enigma', url: 'wss://e.example/ws', channel: 'C' } } } } } })
let client: ReturnType<typeof createNotificationsClient>
beforeEach(() => {
  FakeWebSocket.reset()
  client = createNotificationsClient({ config, WebSocket: FakeWebSocket, lingerMs: 0, heartbeat: false })
})
afterEach(() => client.close())

it('is idle without an account or when disabled, and opens nothing', () => {
  const observer = new NotificationsObserver(client, { account: null })
  const stop = observer.subscribe(() => {})
  expect(observer.getSnapshot()).toEqual({ status: 'idle', error: null })
  observer.setOptions({ account: A, enabled: false })
  expect(observer.getSnapshot().status).toBe('idle')
  expect(FakeWebSocket.instances).toHaveLength(0)
  stop()
})

it('follows the socket status, moves with the account, and releases on the last unsubscribe', () => {
  const observer = new NotificationsObserver(client, { account: A })
  const changes: string[] = []
  const stop = observer.subscribe(() => changes.push(`${observer.getSnapshot().status} ${observer.getSnapshot().continuity?.state ?? '-'}`))
  FakeWebSocket.last().open()
  expect(observer.getSnapshot().status).toBe('open')
  observer.setOptions({ account: B })
  expect(FakeWebSocket.instances[0]!.closed).toBeDefined()
  expect(FakeWebSocket.instances).toHaveLength(2)
  stop()
  expect(FakeWebSocket.instances[1]!.closed).toBeDefined()
  // Each status, then the continuity it means (docs/guide/continuity.md); a new account starts over.
  expect(changes).toEqual(['connecting -', 'connecting catching-up', 'open catching-up', 'open complete', 'idle -', 'connecting -', 'connecting catching-up'])
  expect(observer.getSnapshot().status).toBe('idle')
  expect(observer.getServerSnapshot()).toEqual({ status: 'idle', error: null })
})

it('calls the latest callbacks without resubscribing; a throwing callback becomes a CALLBACK error', () => {
  const first = vi.fn()
  const second = vi.fn(() => {
    throw new Error('boom')
  })
  const onError = vi.fn()
  const observer = new NotificationsObserver(client, { account: A, onNotification: first })
  const stop = observer.subscribe(() => {})
  const ws = FakeWebSocket.last()
  ws.open()
  observer.setOptions({ account: A, onNotification: second, onError })
  ws.message(JSON.stringify({ address: A, data: { quote_id: 1 } }))
  ws.message(JSON.stringify({ address: A, data: { quote_id: 2 } }))
  expect(first).not.toHaveBeenCalled()
  expect(second).toHaveBeenCalledTimes(2)
  expect(onError).toHaveBeenCalledTimes(2)
  expect(observer.getSnapshot().error).toMatchObject({ code: 'CALLBACK', message: expect.stringContaining('boom') })
  expect(FakeWebSocket.instances).toHaveLength(1)
  stop()
})

it('reports bad parameters as state instead of throwing, and errors clear on the next open', () => {
  const onError = vi.fn()
  const observer = new NotificationsObserver(client, { account: '0x12' as never, onError })
  const stop = observer.subscribe(() => {})
  expect(observer.getSnapshot()).toMatchObject({ status: 'idle', error: { code: 'INVALID_PARAMETERS' } })
  expect(onError).toHaveBeenCalledTimes(1)
  observer.setOptions({ account: A })
  FakeWebSocket.last().onerror?.({})
  expect(observer.getSnapshot().error?.code).toBe('SOCKET')
  FakeWebSocket.last().open()
  expect(observer.getSnapshot()).toEqual({ status: 'open', error: null, continuity: { state: 'complete', since: expect.any(Number) } })
  stop()
})

it('passes resume to the stream; toggling it moves the subscription', () => {
  const events = vi.spyOn(client, 'events')
  const observer = new NotificationsObserver(client, { account: A, resume: true })
  const stop = observer.subscribe(() => {})
  expect(events).toHaveBeenLastCalledWith({ account: A, chainId: undefined, solverId: undefined }, { resume: true })
  observer.setOptions({ account: A })
  expect(events).toHaveBeenCalledTimes(2)
  expect(events).toHaveBeenLastCalledWith({ account: A, chainId: undefined, solverId: undefined }, { resume: undefined })
  stop()
})

it('passes resume options through; options written inline every render do not resubscribe, a changed value does', () => {
  const events = vi.spyOn(client, 'events')
  const checkpoint = { get: () => undefined, set: () => {} }
  const observer = new NotificationsObserver(client, { account: A, resume: { since: 100, checkpoint } })
  const stop = observer.subscribe(() => {})
  expect(events.mock.calls.map(([, options]) => options)).toEqual([{ resume: { since: 100, checkpoint } }])
  observer.setOptions({ account: A, resume: { since: 100, checkpoint } }) // a new object, same values
  expect(events).toHaveBeenCalledTimes(1)
  observer.setOptions({ account: A, resume: { since: 200, checkpoint } })
  expect(events).toHaveBeenCalledTimes(2)
  observer.setOptions({ account: A, resume: { since: 200, checkpoint: { get: () => 5, set: () => {} } } }) // another store
  expect(events).toHaveBeenCalledTimes(3)
  stop()
})
