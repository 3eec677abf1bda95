import { type NotificationsClient, createNotificationsClient } from '../src/client/createNotificationsClient.js'
import { createConfig } from '../src/config/createConfig.js'
import type { NotificationsClientOptions } from '../src/stream/clientOptions.js'
import type { NotificationEvent, StatusEvent } from '../src/stream/NotificationEvent.js'
import { FakeWebSocket } from './FakeWebSocket.js'

/** One rasa hub solver (`hub`, the default) and one enigma solver (`enigma`) on fake sockets. */
export const fakeConfig = createConfig({
  defaultChainId: 1,
  chains: {
    1: {
      defaultSolver: 'hub',
      solvers: {
        hub: { notifications: { protocol: 'rasa', url: 'wss://hub.example/ws' } },
        enigma: { notifications: { protocol: 'enigma', url: 'wss://e.example/ws', channel: 'C', searchUrl: 'https://e.example/search' } },
      },
    },
  },
})

/** History that is never reachable: fake-socket tests send nothing to the network. */
const unreachable: typeof fetch = () => Promise.reject(new TypeError('no network in fake-socket tests'))

/** A client on FakeWebSocket with deterministic backoff (random 1) and no heartbeat, for fake-timer tests. */
export function fakeClient(options: Partial<NotificationsClientOptions> = {}): NotificationsClient {
  return createNotificationsClient({ config: fakeConfig, WebSocket: FakeWebSocket, random: () => 1, heartbeat: false, search: { fetch: unreachable }, ...options })
}

export const statusesOf = (values: NotificationEvent[]) => values.filter((e): e is StatusEvent => e.type === 'status')
export const errorsOf = (values: NotificationEvent[]) => values.flatMap((e) => (e.type === 'error' ? [e.error] : []))
