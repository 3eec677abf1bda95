import WebSocket from 'ws'
import { QueryClient } from '@tanstack/svelte-query'
import type { Component } from 'svelte'
import { render, screen, waitFor } from '@testing-library/svelte'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Live, startLive } from '@solver-notifications/test-support'
import Harness from './tests/Harness.svelte'
import Pages from './tests/Pages.svelte'
import Search from './tests/Search.svelte'
import Select from './tests/Select.svelte'
import Status from './tests/Status.svelte'
import { reactiveProps } from './tests/props.svelte.js'

const A = '0xAbC0000000000000000000000000000000000001'
const B = '0xAbC0000000000000000000000000000000000002'
let h: Live
let queryClient: QueryClient
beforeEach(async () => {
  h = await startLive({ WebSocket: WebSocket as never, lingerMs: 30 })
  queryClient = new QueryClient()
})
afterEach(async () => {
  queryClient.clear()
  await h.stop()
})
const mount = (child: Component<any>, props: Record<string, unknown>) => render(Harness, { props: { client: h.client, queryClient, child, props } })

describe('useNotifications (svelte)', () => {
  it('one socket however many readers; no account → idle; account change moves; unmount releases', async () => {
    const props = reactiveProps<{ account?: string; copies: number }>({ account: A, copies: 3 })
    const view = mount(Status, props)
    await waitFor(() => expect(screen.getAllByText('status:open error:none')).toHaveLength(3))
    await screen.findByText('continuity:complete')
    expect(h.rasa.connections()).toHaveLength(1)
    expect(h.client.stats().subscriptions).toBe(1)
    props.account = B
    await waitFor(() => expect(h.rasa.subscriptions().at(-1)?.frame).toEqual({ address: [B] }))
    props.account = undefined
    await waitFor(() => expect(screen.getAllByText('status:idle error:none')).toHaveLength(3))
    view.unmount()
    await waitFor(() => expect(h.rasa.connections()).toHaveLength(0))
    expect(h.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0 })
  })

  it('callbacks may change without resubscribing; a throwing callback is an error, the stream goes on', async () => {
    const notes: string[] = []
    const props = reactiveProps<{ account: string; notes: string[] | null; tag: string }>({ account: A, notes, tag: 'a' })
    mount(Status, props)
    await waitFor(() => expect(h.rasa.subscriptions()).toHaveLength(1))
    props.tag = 'b'
    await h.rasa.publish({ quote_id: 1, counterparty_address: A })
    await waitFor(() => expect(props.notes).toEqual(['b:1'])) // $state proxies the array
    expect(h.rasa.subscriptions()).toHaveLength(1)
    props.notes = null
    await h.rasa.publish({ quote_id: 2, counterparty_address: A })
    await screen.findByText('status:open error:CALLBACK')
    expect(h.rasa.subscriptions()).toHaveLength(1)
  })

  it('without a client, says how to fix it', () => {
    expect(() => render(Status, { props: { account: A } })).toThrowError(/setNotificationsClient\(client\)/)
  })
})

describe('useSearchNotifications (svelte)', () => {
  it('searches with reactive params and narrows on kind', async () => {
    for (let i = 0; i < 3; i++) await h.rasa.instantOpen(A)
    const props = reactiveProps({ account: A, start: 0 })
    mount(Search, props)
    await screen.findByText('rasa rows:1002,1001 count:3')
    props.start = 2
    await screen.findByText('rasa rows:1000 count:3')
    // happy-dom's fetch logs failed requests to the console, as a browser's devtools would: expected here.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    h.rasa.injectHttpFault({ status: 400 })
    props.start = 1
    await screen.findByText('error:HTTP_STATUS')
    expect(logged.mock.calls.map(([line]) => String(line))).toEqual([expect.stringMatching(/^POST .*\/position-state\/1\/2 400 \(Bad Request\)$/)])
    logged.mockRestore()
  })

  it('useInfiniteSearchNotifications pages until the count', async () => {
    for (let i = 0; i < 3; i++) await h.rasa.instantOpen(A)
    mount(Pages, reactiveProps({ account: A }))
    await screen.findByText('pages:2 more:true')
    ;(await screen.findByText('next')).click()
    await screen.findByText('pages:2,1 more:false')
  })

  it('select may change the data type (typed so)', async () => {
    for (let i = 0; i < 3; i++) await h.rasa.instantOpen(A)
    mount(Select, reactiveProps({ account: A }))
    await screen.findByText('ids:1002,1001,1000')
  })
})
