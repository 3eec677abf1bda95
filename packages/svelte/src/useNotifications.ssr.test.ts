import { QueryClient } from '@tanstack/svelte-query'
import { render } from 'svelte/server'
import WebSocket from 'ws'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Live, startLive } from '@solver-notifications/test-support'
import Harness from './tests/Harness.svelte'
import Status from './tests/Status.svelte'

// Runs in the node environment, where components are compiled for the server.
let h: Live
beforeEach(async () => {
  h = await startLive({ WebSocket: WebSocket as never })
})
afterEach(() => h.stop())

it('server rendering opens no socket', () => {
  const { body } = render(Harness, { props: { client: h.client, queryClient: new QueryClient(), child: Status, props: { account: '0xAbC0000000000000000000000000000000000001' } } })
  expect(body).toContain('status:idle error:none')
  expect(h.client.stats().sockets).toBe(0)
  expect(h.rasa.connections()).toHaveLength(0)
})
