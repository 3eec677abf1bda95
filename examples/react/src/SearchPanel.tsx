import type { Address } from '@solver-notifications/core'
import { useSearchNotifications } from '@solver-notifications/react'
import { PAGE_SIZE } from 'example-shared/appConfig'
import { searchRows, time } from 'example-shared/timeline'
import { useState } from 'react'

export function SearchPanel(props: { account: Address | undefined; solverId: 'beta' | 'alpha' }) {
  const [start, setStart] = useState(0)
  const [asked, setAsked] = useState(false)
  const query = useSearchNotifications({ solverId: props.solverId, account: props.account, start, size: PAGE_SIZE, query: { enabled: asked && !!props.account } })
  const data = query.data
  const total = data ? (data.kind === 'enigma' ? data.total : data.count) : 0
  const rows = searchRows(data, 42161, props.solverId)
  return (
    <section>
      <h2>History search</h2>
      <button type="button" onClick={() => (asked ? query.refetch() : setAsked(true))} disabled={!props.account}>
        Search
      </button>
      {query.error && <p className="badge type-failed">{query.error.code}: {query.error.message}</p>}
      <table>
        <tbody>
          {rows.map((n) => (
            <tr key={`${n.id}-${n.quoteId}-${n.modifyTime}`} data-testid="search-row">
              <td>{time(n)}</td>
              <td>{n.onChain ? n.quoteId : `temp ${n.quoteId}`}</td>
              <td>{n.lastSeenAction}</td>
              <td><span className={`badge type-${n.type}`}>{n.type}</span></td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && (
        <div className="pager">
          <button type="button" disabled={start === 0} onClick={() => setStart(Math.max(0, start - PAGE_SIZE))}>Prev</button>
          <button type="button" disabled={start + PAGE_SIZE >= total} onClick={() => setStart(start + PAGE_SIZE)}>Next</button>
          <span data-testid="search-page" className="muted">
            rows {total === 0 ? 0 : start + 1}–{start + rows.length} of {total}
          </span>
        </div>
      )}
    </section>
  )
}
