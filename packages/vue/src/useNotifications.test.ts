import { render, screen, waitFor } from '@testing-library/vue'
import { renderToString } from '@vue/server-renderer'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSSRApp, defineComponent, effectScope, h as hyper, nextTick, ref } from 'vue'
import { type Harness, startHarness } from '../test/harness.js'
import { notificationsPlugin } from './notificationsPlugin.js'
import { useNotifications } from './useNotifications.js'

const A = '0xAbC0000000000000000000000000000000000001'
const B = '0xAbC0000000000000000000000000000000000002'
let h: Harness
beforeEach(async () => {
  h = await startHarness()
})
afterEach(() => h.stop())

const Status = defineComponent({
  props: { account: String, enabled: { type: Boolean, default: true }, tag: { type: String, default: 'a' } },
  emits: ['note'],
  setup(props, { emit }) {
    const { status, error } = useNotifications(() => ({
      account: props.account as `0x${string}` | undefined,
      solverId: 'beta',
      enabled: props.enabled,
      onNotification: (n) => emit('note', `${props.tag}:${n.quoteId}`),
    }))
    return () => hyper('p', `status:${status.value} error:${error.value?.code ?? 'none'}`)
  },
})

describe('useNotifications (vue)', () => {
  it('one socket per account however many components use it', async () => {
    const Many = defineComponent(() => () => [hyper(Status, { account: A }), hyper(Status, { account: A }), hyper(Status, { account: A })])
    render(Many, { global: { plugins: h.plugins } })
    await waitFor(() => expect(screen.getAllByText('status:open error:none')).toHaveLength(3))
    expect(h.rasa.connections()).toHaveLength(1)
    expect(h.client.stats()).toMatchObject({ sockets: 1, subscriptions: 3 })
  })

  it('no account → idle, no socket; changing the account moves the subscription; unmount releases', async () => {
    const notes: string[] = []
    const view = render(Status, { props: { account: undefined, onNote: (n: string) => notes.push(n) }, global: { plugins: h.plugins } })
    expect(screen.getByText('status:idle error:none')).toBeTruthy()
    expect(h.client.stats().sockets).toBe(0)
    await view.rerender({ account: A })
    await screen.findByText('status:open error:none')
    await view.rerender({ account: B })
    await waitFor(() => expect(h.rasa.subscriptions().at(-1)?.frame).toEqual({ address: [B] }))
    await h.rasa.publish({ quote_id: 3, counterparty_address: B })
    await waitFor(() => expect(notes).toEqual(['a:3']))
    view.unmount()
    await waitFor(() => expect(h.rasa.connections()).toHaveLength(0))
    expect(h.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0 })
  })

  it('callbacks may change without resubscribing', async () => {
    const notes: string[] = []
    const view = render(Status, { props: { account: A, onNote: (n: string) => notes.push(n) }, global: { plugins: h.plugins } })
    await waitFor(() => expect(h.rasa.subscriptions()).toHaveLength(1))
    await view.rerender({ tag: 'b' })
    await h.rasa.publish({ quote_id: 1, counterparty_address: A })
    await waitFor(() => expect(notes).toEqual(['b:1']))
    expect(h.rasa.subscriptions()).toHaveLength(1)
  })

  it('errors arrive in error and onError without stopping the stream; scope stop releases', async () => {
    const onError = vi.fn()
    const scope = effectScope()
    const app = createSSRApp({ render: () => null }).use(notificationsPlugin, { client: h.client })
    const account = ref<`0x${string}`>(A)
    const state = app.runWithContext(() =>
      scope.run(() =>
        useNotifications(() => ({
          account: account.value,
          solverId: 'beta',
          onError,
          onNotification: () => {
            throw new Error('app bug')
          },
        })),
      ),
    )!
    await waitFor(() => expect(h.rasa.subscriptions()).toHaveLength(1))
    await h.rasa.publish({ quote_id: 1, counterparty_address: A })
    await waitFor(() => expect(state.error.value?.code).toBe('CALLBACK'))
    expect(onError).toHaveBeenCalledTimes(1)
    expect(state.status.value).toBe('open')
    expect(state.continuity.value?.state).toBe('complete')
    scope.stop()
    await nextTick()
    await waitFor(() => expect(h.rasa.connections()).toHaveLength(0))
  })

  it('server rendering opens no socket', async () => {
    const app = createSSRApp(Status, { account: A }).use(notificationsPlugin, { client: h.client })
    expect(await renderToString(app)).toBe('<p>status:idle error:none</p>')
    expect(h.client.stats().sockets).toBe(0)
  })

  it('without a plugin, says how to fix it', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(() => render(Status, { props: { account: A } })).toThrowError(/app.use\(notificationsPlugin, \{ client \}\)/)
  })
})
