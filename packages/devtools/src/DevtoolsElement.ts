import type { ClientSnapshot, NotificationsStreamClient } from '@solver-notifications/core'
import type { Subscription } from 'rxjs'

/** The tag the panel registers: `<solver-notifications-devtools>`. */
export const DEVTOOLS_TAG = 'solver-notifications-devtools'

const html = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const time = (unix: number | null | undefined) => (unix ? new Date(unix * 1000).toISOString().slice(11, 19) : '—')

const STYLE = `
:host { all: initial; display: block; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: #e6e6e6; background: #16181d; border: 1px solid #333; border-radius: 6px; padding: 8px; max-height: 60vh; overflow: auto; }
header { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; }
h2 { font-size: 13px; margin: 0; flex: 1; }
button { font: inherit; color: inherit; background: #2a2f3a; border: 1px solid #444; border-radius: 4px; padding: 2px 8px; cursor: pointer; }
section { border-top: 1px solid #333; padding: 6px 0; }
.state { font-weight: bold; } [data-state=open] .state { color: #7bd88f; } [data-state=reconnecting] .state, [data-state=connecting] .state { color: #f4d35e; } [data-state=closed] .state { color: #ff6b6b; }
.stream { margin: 4px 0 0 12px; } ol { margin: 2px 0 0 0; padding-left: 18px; max-height: 120px; overflow: auto; } .backfill { color: #8ab4f8; } .muted { color: #999; }
`

/** Renders one snapshot: counters, then each socket with its resume streams and their newest notifications. */
function render(s: ClientSnapshot): string {
  const { stats } = s
  const crossTab = stats.crossTab ? ` · cross-tab ${html(stats.crossTab.role)} of ${stats.crossTab.tabs} tab(s)` : ''
  const summary = `sockets ${stats.socketStatus.open} open, ${stats.socketStatus.connecting} connecting, ${stats.socketStatus.reconnecting} reconnecting · frames ${stats.frames.received} received, ${stats.frames.delivered} delivered · reconnects ${stats.reconnects} · backfills ${stats.backfills.runs} (recovered ${stats.backfills.recovered}, truncated ${stats.backfills.truncated}, failed ${stats.backfills.failed})${crossTab}`
  const sockets = s.sockets
    .map((k, i) => {
      const close = k.closeCode !== undefined ? ` · last close ${k.closeCode} ${html(k.closeReason)}` : ''
      const streams = k.streams
        .map((r) => {
          const backfill = r.lastBackfill ? ` · backfill <span class="backfill" data-backfill="${html(r.lastBackfill.state)}">${html(r.lastBackfill.state)}${r.lastBackfill.recovered !== undefined ? `, recovered ${r.lastBackfill.recovered}` : ''}</span>` : ''
          const recent = r.recent
            .map((n) => `<li class="${n.source}">${time(n.modifyTime)} quote ${n.quoteId} ${html(n.lastSeenAction)} → ${html(n.type)}${n.source === 'backfill' ? ' <span class="backfill">[backfill]</span>' : ''}</li>`)
            .join('')
          return `<div class="stream" data-account="${html(r.account)}">${html(r.account)} · ${html(r.phase)} · watermark ${time(r.watermark)} · held ${r.held}${backfill}<ol>${recent || '<li class="muted">no notification yet</li>'}</ol></div>`
        })
        .join('')
      return `<section class="socket" data-state="${html(k.state)}"><div><span class="state">${html(k.state)}</span> ${html(k.key)} · ${html(k.protocol)} · attempt ${k.attempt}${close} · ${k.accounts.length} account(s) <button data-action="drop" data-socket="${i}">drop socket</button></div><div class="muted">${html(k.url)}</div>${streams}</section>`
    })
    .join('')
  const books = s.quoteBooks.map((b) => `<li>${html(b.solverId ?? 'default')} ${html(b.account)} · ${b.size} quote(s)${b.ready ? '' : ' · loading'}</li>`).join('')
  return `<style>${STYLE}</style><header><h2>solver-notifications</h2><button data-action="copy">copy diagnostics</button><span class="copied muted"></span></header><div class="summary">${summary}</div>${sockets || '<section class="muted">no socket</section>'}${books ? `<section class="books">quote books<ol>${books}</ol></section>` : ''}`
}

/**
 * Defines `<solver-notifications-devtools>` once (in a browser); returns its class. Set its `client`
 * property and it shows that client's `inspect()` snapshots live.
 *
 * @example
 * defineDevtoolsElement(); const panel = document.createElement('solver-notifications-devtools'); Object.assign(panel, { client }); document.body.append(panel)
 */
export function defineDevtoolsElement(): CustomElementConstructor {
  const existing = customElements.get(DEVTOOLS_TAG)
  if (existing) return existing
  class SolverNotificationsDevtools extends HTMLElement {
    private current: NotificationsStreamClient | undefined
    private subscription: Subscription | undefined
    private last: ClientSnapshot | undefined
    private readonly root = this.attachShadow({ mode: 'open' })

    constructor() {
      super()
      // One listener for every button: the markup is replaced on each snapshot.
      this.root.addEventListener('click', (event) => {
        const button = (event.target as Element | null)?.closest?.('button[data-action]')
        if (!button || !this.last) return
        if (button.getAttribute('data-action') === 'drop') this.last.sockets[Number(button.getAttribute('data-socket'))]?.drop()
        else void this.copy()
      })
    }

    get client(): NotificationsStreamClient | undefined {
      return this.current
    }

    set client(client: NotificationsStreamClient | undefined) {
      this.current = client
      this.restart()
    }

    connectedCallback(): void {
      this.restart()
    }

    disconnectedCallback(): void {
      this.subscription?.unsubscribe()
      this.subscription = undefined
    }

    private restart(): void {
      this.subscription?.unsubscribe()
      this.subscription = undefined
      if (!this.current || !this.isConnected) return
      this.subscription = this.current.inspect({ intervalMs: 500 }).subscribe((snapshot) => {
        this.last = snapshot
        this.root.innerHTML = render(snapshot)
      })
    }

    /** The last snapshot as JSON (URLs already redacted) on the clipboard. */
    private async copy(): Promise<void> {
      const text = JSON.stringify(this.last, null, 2)
      const note = this.root.querySelector('.copied')
      try {
        await navigator.clipboard.writeText(text)
        if (note) note.textContent = 'copied'
      } catch {
        if (note) note.textContent = 'clipboard refused: see the console'
        console.info(text)
      }
    }
  }
  customElements.define(DEVTOOLS_TAG, SolverNotificationsDevtools)
  return SolverNotificationsDevtools
}
