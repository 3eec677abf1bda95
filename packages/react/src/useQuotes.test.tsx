import type { QuoteState } from '@solver-notifications/core'
import { memo } from 'react'
import { render, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type Harness, startHarness } from '../test/harness.js'
import { useQuotes } from './useQuotes.js'

const A = '0xAbC0000000000000000000000000000000000001'
let h: Harness
beforeEach(async () => {
  h = await startHarness()
})
afterEach(() => h.stop())

const renders = new Map<string, number>()
const Row = memo(function Row({ quote }: { quote: QuoteState }) {
  renders.set(quote.key, (renders.get(quote.key) ?? 0) + 1)
  return (
    <li>
      {quote.key}:{quote.status}
    </li>
  )
})

function Book(props: { account?: `0x${string}`; enabled?: boolean }) {
  const { status, ready, error, quotes, continuity } = useQuotes({ account: props.account, solverId: 'beta', enabled: props.enabled })
  return (
    <div>
      <p>continuity:{continuity?.state ?? 'none'}</p>
      <p>
        status:{status} ready:{String(ready)} error:{error?.code ?? 'none'} rows:{quotes.length}
      </p>
      <ul>
        {quotes.map((q) => (
          <Row key={q.key} quote={q} />
        ))}
      </ul>
    </div>
  )
}

it('shows one row per quote from history and live, re-rendering only the quote that changed', async () => {
  renders.clear()
  const first = await h.rasa.instantOpen(A)
  render(<Book account={A} />, { wrapper: h.wrapper })
  await screen.findByText('status:open ready:true error:none rows:1')
  await screen.findByText('continuity:complete')
  expect(screen.getByText(`t${first.tempQuoteId}:open`)).toBeTruthy()
  await h.rasa.waitForSubscribers(A)
  const second = await h.rasa.instantOpen(A)
  await screen.findByText('status:open ready:true error:none rows:2')
  await screen.findByText(`t${second.tempQuoteId}:open`)
  await h.rasa.closeRequest(first.quoteId)
  await screen.findByText(`t${first.tempQuoteId}:closed`)
  // The second quote did not change after it opened: its row rendered for its own updates only.
  const secondRenders = renders.get(`t${second.tempQuoteId}`)!
  await h.rasa.fill(first.quoteId)
  await waitFor(() => expect(renders.get(`t${first.tempQuoteId}`)).toBeGreaterThan(2))
  expect(renders.get(`t${second.tempQuoteId}`)).toBe(secondRenders)
  expect(screen.getAllByRole('listitem')).toHaveLength(2)
})

it('no account or enabled: false → idle, no socket, no request', async () => {
  const { rerender } = render(<Book />, { wrapper: h.wrapper })
  expect(screen.getByText('status:idle ready:false error:none rows:0')).toBeTruthy()
  rerender(<Book account={A} enabled={false} />)
  expect(screen.getByText('status:idle ready:false error:none rows:0')).toBeTruthy()
  expect(h.client.stats().sockets).toBe(0)
  expect(h.rasa.httpRequests()).toHaveLength(0)
})
