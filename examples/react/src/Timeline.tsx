import { type QuoteGroup, amount, time } from 'example-shared/timeline'

export function Timeline(props: { groups: QuoteGroup[] }) {
  return (
    <section>
      <h2>Live timeline</h2>
      {props.groups.length === 0 && <p className="muted">Waiting for notifications…</p>}
      {props.groups.map((g) => (
        <div className="quote" key={g.key} data-testid={`quote-${g.key}`}>
          <h3>
            <span>{g.onChain ? `quote ${g.quoteId}` : `temp ${g.key}`}</span>
            <span className={`badge type-${g.latest.type}`}>{g.latest.type}</span>
            <span className="muted">{g.latest.phase}</span>
          </h3>
          {g.entries.map((n) => (
            <div className="entry" data-testid="entry" key={`${n.id}-${n.modifyTime}`}>
              <span className="muted">{time(n)}</span>
              <span className={`badge type-${n.type}`}>{n.type}</span>
              <span>{n.phase}</span>
              <span>
                {n.lastSeenAction} {amount(n)} {n.failureType && <b>{n.failureType}</b>}
              </span>
            </div>
          ))}
        </div>
      ))}
    </section>
  )
}
