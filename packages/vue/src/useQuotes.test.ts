import { render, screen, waitFor } from '@testing-library/vue'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { defineComponent, h as hyper } from 'vue'
import { type Harness, startHarness } from '../test/harness.js'
import { useQuotes } from './useQuotes.js'

const A = '0xAbC0000000000000000000000000000000000001'
let h: Harness
beforeEach(async () => {
  h = await startHarness()
})
afterEach(() => h.stop())

const Book = defineComponent({
  props: { account: String, enabled: { type: Boolean, default: true } },
  setup(props) {
    const { status, ready, error, quotes, continuity } = useQuotes(() => ({ account: props.account as `0x${string}` | undefined, solverId: 'beta', enabled: props.enabled }))
    return () =>
      hyper('div', [
        hyper('p', `continuity:${continuity.value?.state ?? 'none'}`),
        hyper('p', `status:${status.value} ready:${ready.value} error:${error.value?.code ?? 'none'} rows:${quotes.value.length}`),
        hyper('ul', quotes.value.map((q) => hyper('li', { key: q.key }, `${q.key}:${q.status}`))),
      ])
  },
})

it('useQuotes (vue): idle without an account; one row per quote from history and live; unmount releases', async () => {
  const first = await h.rasa.instantOpen(A)
  const view = render(Book, { props: { account: undefined }, global: { plugins: h.plugins } })
  expect(screen.getByText('status:idle ready:false error:none rows:0')).toBeTruthy()
  expect(h.client.stats().sockets).toBe(0)
  await view.rerender({ account: A })
  await screen.findByText('status:open ready:true error:none rows:1')
  await screen.findByText('continuity:complete')
  await h.rasa.waitForSubscribers(A)
  await h.rasa.closeRequest(first.quoteId)
  await screen.findByText(`t${first.tempQuoteId}:closed`)
  expect(screen.getAllByRole('listitem')).toHaveLength(1)
  view.unmount()
  await waitFor(() => expect(h.client.stats()).toMatchObject({ sockets: 0, subscriptions: 0 }))
})
