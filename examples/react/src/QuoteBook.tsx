import type { Address, QuoteState } from '@solver-notifications/core'
import { useNotificationsClient, useQuotes } from '@solver-notifications/react'
import { amount, continuityBadge, quoteCount, quoteLabel, time, waitForFill } from 'example-shared/timeline'
import { memo, useState } from 'react'

export function QuoteBook(props: { account: Address | undefined; solverId: 'beta' | 'alpha' }) {
  const { ready, quotes, error, continuity } = useQuotes({ account: props.account, solverId: props.solverId })
  const badge = continuityBadge(continuity)
  return (
    <section>
      <h2>
        Quotes <span className="muted" data-testid="quote-count">{ready ? quoteCount(quotes.length) : 'loading…'}</span>{' '}
        <span data-testid="continuity" className={badge.className} title={badge.title}>{badge.label}</span>
      </h2>
      {error && <p className="badge type-failed">{error.code}: {error.message}</p>}
      {ready && quotes.length === 0 && <p className="muted">No quotes yet.</p>}
      {quotes.map((q) => (
        <QuoteRow key={q.key} quote={q} account={props.account!} solverId={props.solverId} />
      ))}
    </section>
  )
}

// Memoized: the book keeps the object of a quote that did not change, so only changed rows render.
const QuoteRow = memo(function QuoteRow(props: { quote: QuoteState; account: Address; solverId: string }) {
  const client = useNotificationsClient()
  const [wait, setWait] = useState<string>()
  const q = props.quote
  return (
    <div className="quote" data-testid={`quote-${q.key}`}>
      <h3>
        <span>{quoteLabel(q)}</span>
        <span data-testid="quote-status" className={`badge status-${q.status}`}>{q.status}</span>
        {!q.settled && wait === undefined && (
          <button
            type="button"
            onClick={() => {
              setWait('waiting…')
              waitForFill(client, props.account, props.solverId, q).then(setWait)
            }}
          >
            Wait for fill
          </button>
        )}
        {wait && <span data-testid="wait-result" className="muted">{wait}</span>}
      </h3>
      {q.transitions.map((n) => (
        <div className="entry" data-testid="entry" key={`${n.id}-${n.modifyTime}-${n.lastSeenAction}-${n.actionStatus}`}>
          <span className="muted">{time(n)}</span>
          <span className={`badge type-${n.type}`}>{n.type}</span>
          <span>{n.phase}</span>
          <span>
            {n.lastSeenAction} {amount(n)} {n.failureType && <b>{n.failureType}</b>} {n.source === 'backfill' && <span className="mark" data-testid="backfill-mark">backfill</span>}
          </span>
        </div>
      ))}
    </div>
  )
})
