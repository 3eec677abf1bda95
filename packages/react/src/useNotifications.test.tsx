import { StrictMode } from 'react'
import { renderToString } from 'react-dom/server'
import { act, render, renderHook, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type Harness, startHarness } from '../test/harness.js'
import { NotificationsProvider } from './NotificationsProvider.js'
import { useNotifications } from './useNotifications.js'

const A = '0xAbC0000000000000000000000000000000000001'
const B = '0xAbC0000000000000000000000000000000000002'
let h: Harness
beforeEach(async () => {
  h = await startHarness()
})
afterEach(() => h.stop())

function Status(props: { account?: `0x${string}`; enabled?: boolean; onNotification?: (quoteId: number) => void }) {
  const { status, error } = useNotifications({ account: props.account, solverId: 'beta', enabled: props.enabled, onNotification: (n) => props.onNotification?.(n.quoteId) })
  return (
    <p>
      status:{status} error:{error?.code ?? 'none'}
    </p>
  )
}

describe('useNotifications', () => {
  it('StrictMode opens exactly one socket and delivers each frame once', async () => {
    const seen: number[] = []
    render(
      <StrictMode>
        <Status account={A} onNotification={(q) => seen.push(q)} />
      </StrictMode>,
      { wrapper: h.wrapper },
    )
    await screen.findByText('status:open error:none')
    await waitFor(() => expect(h.rasa.subscriptions()).toHaveLength(1))
    await h.rasa.publish({ quote_id: 7, counterparty_address: A })
    await waitFor(() => expect(seen).toEqual([7]))
    expect(h.rasa.connections()).toHaveLength(1)
  })

  it('no account or enabled: false → idle, no socket', async () => {
    const { rerender } = render(<Status />, { wrapper: h.wrapper })
    expect(screen.getByText('status:idle error:none')).toBeTruthy()
    rerender(<Status account={A} enabled={false} />)
    expect(screen.getByText('status:idle error:none')).toBeTruthy()
    expect(h.client.stats().sockets).toBe(0)
    rerender(<Status account={A} />)
    await screen.findByText('status:open error:none')
  })

  it('changing account moves the subscription; unmount releases', async () => {
    const { rerender, unmount } = render(<Status account={A} />, { wrapper: h.wrapper })
    await screen.findByText('status:open error:none')
    rerender(<Status account={B} />)
    await waitFor(() => expect(h.rasa.subscriptions().at(-1)?.frame).toEqual({ address: [B] }))
    unmount()
    await waitFor(() => expect(h.rasa.connections().length).toBe(0))
    expect(h.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0 })
  })

  it('new callback identities do not resubscribe', async () => {
    const calls: string[] = []
    const { result, rerender } = renderHook(({ tag }) => useNotifications({ account: A, solverId: 'beta', onNotification: () => calls.push(tag) }), {
      wrapper: h.wrapper,
      initialProps: { tag: 'first' },
    })
    await waitFor(() => expect(result.current.status).toBe('open'))
    rerender({ tag: 'second' })
    rerender({ tag: 'third' })
    await waitFor(() => expect(h.rasa.subscriptions()).toHaveLength(1))
    await h.rasa.publish({ quote_id: 1, counterparty_address: A })
    await waitFor(() => expect(calls).toEqual(['third']))
    expect(h.rasa.subscriptions()).toHaveLength(1)
    expect(h.client.stats().subscriptions).toBe(1)
  })

  it('errors arrive in error and onError without stopping the stream', async () => {
    const onError = vi.fn()
    const onNotification = vi.fn(() => {
      throw new Error('app bug')
    })
    const { result } = renderHook(() => useNotifications({ account: A, solverId: 'beta', onNotification, onError }), { wrapper: h.wrapper })
    await waitFor(() => expect(h.rasa.subscriptions()).toHaveLength(1))
    await act(() => h.rasa.publish({ quote_id: 1, counterparty_address: A }))
    await waitFor(() => expect(result.current.error?.code).toBe('CALLBACK'))
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: 'CALLBACK' }))
    await act(() => h.rasa.publish({ quote_id: 2, counterparty_address: A }))
    await waitFor(() => expect(onNotification).toHaveBeenCalledTimes(2))
    expect(result.current.status).toBe('open')
  })

  it('a dropped connection shows reconnecting, then open again; continuity says complete, then incomplete for a live-only stream', async () => {
    const statuses: string[] = []
    const { result } = renderHook(() => useNotifications({ account: A, solverId: 'beta', onStatusChange: (s) => statuses.push(s) }), { wrapper: h.wrapper })
    await waitFor(() => expect(statuses).toContain('open'))
    await waitFor(() => expect(result.current.continuity?.state).toBe('complete'))
    await act(() => h.rasa.dropAll(1012))
    await waitFor(() => expect(statuses.filter((s) => s === 'open')).toHaveLength(2))
    expect(statuses).toEqual(['connecting', 'open', 'reconnecting', 'connecting', 'open'])
    expect(result.current.continuity).toMatchObject({ state: 'incomplete', reason: 'no-resume' })
  })

  it('server rendering opens no socket', () => {
    const html = renderToString(
      <NotificationsProvider client={h.client}>
        <Status account={A} />
      </NotificationsProvider>,
    )
    expect(html).toContain('status:<!-- -->idle')
    expect(h.client.stats().sockets).toBe(0)
    expect(h.rasa.connections()).toHaveLength(0)
  })

  it('without a provider, says how to fix it', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(() => render(<Status account={A} />)).toThrowError(/wrap your app in <NotificationsProvider/)
  })
})
