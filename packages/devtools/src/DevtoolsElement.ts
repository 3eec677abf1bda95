import type { ClientSnapshot, NotificationsStreamClient } from '@solver-notifications/core'
import { type StreamTiming, watchDeliveries } from './deliveryTimes.js'
import type { Subscription } from 'rxjs'

/** The tag the panel registers: `<solver-notifications-devtools>`. */
export const DEVTOOLS_TAG = 'solver-notifications-devtools'

const html = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
/** A time of day for plausible unix seconds; anything else (milliseconds, microseconds, garbage) is shown as given, never thrown. */
const time = (unix: unknown): string => {
  if (unix === null || unix === undefined) return '—'
  const date = typeof unix === 'number' ? new Date(unix * 1000) : undefined
  return date && Number.isFinite(date.getTime()) && date.getUTCFullYear() < 10_000 ? date.toISOString().slice(11, 19) : html(unix)
}

/** Where the toggle button sits; the panel opens from the same corner. */
export type DevtoolsPosition = 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left'
const POSITIONS: readonly DevtoolsPosition[] = ['bottom-right', 'bottom-left', 'top-right', 'top-left']

/**
 * How the panel shows: closed behind a toggle button in a corner (like TanStack Query's devtools), or
 * open at once.
 *
 * @example
 * mountDevtools(client, undefined, { initialIsOpen: true, position: 'bottom-left' })
 */
export interface DevtoolsOptions {
  /** open when mounted (default false: only the toggle shows) */
  initialIsOpen?: boolean
  /** the corner of the toggle and the panel (default `bottom-right`) */
  position?: DevtoolsPosition
}

const STYLE = `
:host { all: initial; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; color: #e6e6e6; }
.toggle, .panel { position: fixed; z-index: 2147483000; box-sizing: border-box; }
.toggle { font: inherit; color: #e6e6e6; background: #16181d; border: 1px solid #555; border-radius: 16px; padding: 6px 12px; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.4); }
.panel { width: min(760px, calc(100vw - 24px)); max-height: min(70vh, calc(100vh - 72px)); overflow: auto; overscroll-behavior: contain; background: #16181d; border: 1px solid #333; border-radius: 6px; padding: 8px; box-shadow: 0 4px 24px rgba(0,0,0,.5); }
.panel[hidden] { display: none; }
[data-position^=bottom] .toggle { bottom: 12px; } [data-position^=top] .toggle { top: 12px; }
[data-position$=right] .toggle, [data-position$=right] .panel { right: 12px; } [data-position$=left] .toggle, [data-position$=left] .panel { left: 12px; }
[data-position^=bottom] .panel { bottom: 52px; } [data-position^=top] .panel { top: 52px; }
header { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 6px; }
h2 { font-size: 13px; margin: 0; flex: 1; }
button { font: inherit; color: inherit; background: #2a2f3a; border: 1px solid #444; border-radius: 4px; padding: 2px 8px; cursor: pointer; }
section { border-top: 1px solid #333; padding: 6px 0; overflow-wrap: anywhere; }
.state { font-weight: bold; } [data-state=open] .state { color: #7bd88f; } [data-state=reconnecting] .state, [data-state=connecting] .state { color: #f4d35e; } [data-state=closed] .state { color: #ff6b6b; }
.stream { margin: 4px 0 0 12px; } ul { list-style: none; margin: 2px 0 0 0; padding: 0 0 0 8px; } li { white-space: nowrap; overflow-x: visible; }
.backfill { color: #8ab4f8; } .muted { color: #999; } .failed { color: #ff6b6b; }
`

/** Renders one snapshot: counters, then each socket with its resume streams and their newest notifications. */
function render(s: ClientSnapshot, timing: (key: string) => StreamTiming | undefined = () => undefined): string {
  const { stats } = s
  const crossTab = stats.crossTab ? ` · cross-tab ${html(stats.crossTab.role)} of ${stats.crossTab.tabs} tab(s)` : ''
  const summary = `sockets ${stats.socketStatus.open} open, ${stats.socketStatus.connecting} connecting, ${stats.socketStatus.reconnecting} reconnecting · frames ${stats.frames.received} received, ${stats.frames.delivered} delivered · reconnects ${stats.reconnects} · backfills ${stats.backfills.runs} (recovered ${stats.backfills.recovered}, truncated ${stats.backfills.truncated}, failed ${stats.backfills.failed})${crossTab}`
  const sockets = s.sockets
    .map((k, i) => {
      const close = k.closeCode !== undefined ? ` · last close ${k.closeCode} ${html(k.closeReason)}` : ''
      const streams = k.streams
        .map((r) => {
          const backfill = r.lastBackfill ? ` · backfill <span class="backfill" data-backfill="${html(r.lastBackfill.state)}">${html(r.lastBackfill.state)}${r.lastBackfill.recovered !== undefined ? `, recovered ${r.lastBackfill.recovered}` : ''}</span>` : ''
          // Newest first: the last delivered is what a developer looks for.
          const recent = [...r.recent]
            .reverse()
            .map((n) => `<li class="${html(n.source)}">${time(n.modifyTime)} quote ${html(n.quoteId)} ${html(n.lastSeenAction)} → ${html(n.type)}${n.source === 'backfill' ? ' <span class="backfill">[backfill]</span>' : ''}</li>`)
            .join('')
          const t = timing(`${k.chainId}:${k.solverId}:${r.account.toLowerCase()}`)
          const times = t ? ` · <span class="timing">last ${(t.sinceMs / 1000).toFixed(1)} s ago, delivery p99 ${t.p99Ms.toFixed(1)} ms</span>` : ''
          const c = r.continuity
          const continuity = c ? ` · <span class="continuity" data-continuity="${html(c.state)}">${html(c.state)}${c.reason ? ` (${html(c.reason)})` : ''}</span>` : ''
          return `<div class="stream" data-account="${html(r.account)}">${html(r.account)} · ${html(r.phase)}${continuity} · watermark ${time(r.watermark)} · held ${html(r.held)}${times}${backfill}<ul>${recent || '<li class="muted">no notification yet</li>'}</ul></div>`
        })
        .join('')
      return `<section class="socket" data-state="${html(k.state)}"><div><span class="state">${html(k.state)}</span> ${html(k.key)} · ${html(k.protocol)} · attempt ${k.attempt}${close} · ${k.accounts.length} account(s) <button data-action="drop" data-socket="${i}">drop socket</button></div><div class="muted">${html(k.url)}</div>${streams}</section>`
    })
    .join('')
  const books = s.quoteBooks.map((b) => `<li>${html(b.solverId ?? 'default')} ${html(b.account)} · ${html(b.size)} quote(s)${b.ready ? '' : ' · loading'}</li>`).join('')
  return `<header><h2>solver-notifications</h2><button data-action="copy">copy diagnostics</button><span class="copied muted"></span></header><div class="summary">${summary}</div>${sockets || '<section class="muted">no socket</section>'}${books ? `<section class="books">quote books<ul>${books}</ul></section>` : ''}`
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
    static get observedAttributes(): string[] {
      return ['position', 'open']
    }
    private current: NotificationsStreamClient | undefined
    private subscription: Subscription | undefined
    private deliveries: ReturnType<typeof watchDeliveries> | undefined
    private last: ClientSnapshot | undefined
    private readonly root = this.attachShadow({ mode: 'open' })
    private readonly frame: HTMLDivElement
    private readonly toggle: HTMLButtonElement
    private readonly panel: HTMLDivElement

    constructor() {
      super()
      const style = document.createElement('style')
      style.textContent = STYLE
      this.frame = document.createElement('div')
      this.toggle = document.createElement('button')
      this.toggle.className = 'toggle'
      this.toggle.dataset.action = 'toggle'
      this.panel = document.createElement('div')
      this.panel.className = 'panel'
      this.panel.setAttribute('role', 'region')
      this.panel.setAttribute('aria-label', 'solver-notifications devtools')
      this.frame.append(this.panel, this.toggle)
      this.root.append(style, this.frame)
      this.sync()
      // One listener for every button: the panel's markup is replaced on each snapshot.
      this.root.addEventListener('click', (event) => {
        const button = (event.target as Element | null)?.closest?.('button[data-action]')
        const action = button?.getAttribute('data-action')
        if (action === 'toggle') this.open = !this.open
        else if (action === 'drop') this.last?.sockets[Number(button!.getAttribute('data-socket'))]?.drop()
        else if (action === 'copy' && this.last) void this.copy()
      })
    }

    get client(): NotificationsStreamClient | undefined {
      return this.current
    }

    set client(client: NotificationsStreamClient | undefined) {
      this.current = client
      this.restart()
    }

    /** Whether the panel is open (the `open` attribute); closed, it inspects nothing. */
    get open(): boolean {
      return this.hasAttribute('open')
    }

    set open(value: boolean) {
      this.toggleAttribute('open', value)
    }

    attributeChangedCallback(): void {
      this.sync()
      this.restart()
    }

    connectedCallback(): void {
      this.restart()
    }

    disconnectedCallback(): void {
      this.subscription?.unsubscribe()
      this.subscription = undefined
      this.deliveries?.stop()
      this.deliveries = undefined
    }

    private sync(): void {
      const position = this.getAttribute('position')
      this.frame.dataset.position = POSITIONS.includes(position as DevtoolsPosition) ? (position as string) : 'bottom-right'
      this.panel.hidden = !this.open
      this.toggle.textContent = this.open ? 'close notifications devtools' : 'notifications devtools'
      this.toggle.setAttribute('aria-expanded', String(this.open))
    }

    private restart(): void {
      this.subscription?.unsubscribe()
      this.subscription = undefined
      this.deliveries?.stop()
      this.deliveries = undefined
      // Closed, the panel asks for nothing: the streams record nothing for it.
      if (!this.current || !this.isConnected || !this.open) return
      // Delivery times from the diagnostics seam (only while open: nothing is timed otherwise).
      const deliveries = (this.deliveries = watchDeliveries(this.current))
      this.subscription = this.current.inspect({ intervalMs: 500 }).subscribe((snapshot) => {
        this.last = snapshot
        let markup: string
        try {
          markup = render(snapshot, (key) => deliveries.of(key))
        } catch (error) {
          // One value the panel cannot show must not freeze it: the next snapshot renders again.
          markup = `<section class="failed">could not show this snapshot: ${html((error as Error)?.message ?? error)}</section>`
        }
        this.panel.innerHTML = markup
      })
    }

    /** The last snapshot as JSON (URLs already redacted) on the clipboard. */
    private async copy(): Promise<void> {
      const text = JSON.stringify(this.last, null, 2)
      const note = this.panel.querySelector('.copied')
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
