import { QueryClient } from '@tanstack/svelte-query'
import { render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Live, startLive } from '@solver-notifications/test-support'
import Harness from './tests/Harness.svelte'
import Quotes from './tests/Quotes.svelte'
import { reactiveProps } from './tests/props.svelte.js'

const A = '0xAbC0000000000000000000000000000000000001'
let h: Live
let queryClient: QueryClient
beforeEach(async () => {
  // The hooks are the point here, not the sockets: the simulators run in memory (no port).
  h = await startLive({ lingerMs: 30 }, { memory: true })
  queryClient = new QueryClient()
})
afterEach(async () => {
  queryClient.clear()
  await h.stop()
})

it('useQuotes (svelte): idle without an account; one row per quote from history and live; unmount releases', async () => {
  const first = await h.rasa.instantOpen(A)
  const props = reactiveProps<{ account?: string; enabled: boolean }>({ account: undefined, enabled: true })
  const view = render(Harness, { props: { client: h.client, queryClient, child: Quotes, props } })
  expect(screen.getByText('status:idle ready:false error:none rows:0')).toBeTruthy()
  expect(h.client.stats().sockets).toBe(0)
  props.account = A
  await screen.findByText('status:open ready:true error:none rows:1')
  await screen.findByText('continuity:complete')
  await h.rasa.waitForSubscribers(A)
  await h.rasa.closeRequest(first.quoteId)
  await screen.findByText(`t${first.tempQuoteId}:closed`)
  expect(screen.getAllByRole('listitem')).toHaveLength(1)
  view.unmount()
  await waitFor(() => expect(h.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0 }))
})
