import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, expect, it, vi } from 'vitest'
import { mountDevtools } from './mountDevtools.js'

let live: Live
afterEach(() => live?.stop())
/** Whether anybody listens to the client's diagnostics (the seam's own flag, not in its public type). */
const listening = () => (live.client.diagnostics as unknown as { active: boolean }).active

const until = async (test: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !test(); i++) await new Promise((r) => setTimeout(r, 25))
  if (!test()) throw new Error(`timed out waiting for ${what}`)
}

it('mountDevtools shows the sockets and resume streams live; "drop socket" makes the stream reconnect and backfill', async () => {
  live = await startLive({ reconnect: { baseDelayMs: 50 } })
  const events = record(live.client.events({ account: accounts[0], solverId: live.solverOf.rasa }, { resume: true }))
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  const host = document.createElement('div')
  document.body.append(host)
  const unmount = mountDevtools(live.client, host)
  const panel = host.querySelector('solver-notifications-devtools')!
  const shown = () => panel.shadowRoot?.querySelector('.panel')?.innerHTML ?? ''
  // Closed at first: only the toggle shows, and nothing is inspected.
  const toggle = panel.shadowRoot!.querySelector('button.toggle') as HTMLButtonElement
  expect(toggle.getAttribute('aria-expanded')).toBe('false')
  expect((panel.shadowRoot!.querySelector('.panel') as HTMLElement).hidden).toBe(true)
  toggle.click()
  expect(toggle.getAttribute('aria-expanded')).toBe('true')
  await until(() => shown().includes('data-state="open"'), 'the open socket')
  expect(shown()).toContain(`data-account="${accounts[0]}"`)
  expect(shown()).toContain('rasa')
  ;(panel.shadowRoot!.querySelector('button[data-action="drop"]') as HTMLButtonElement).click()
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'reconnecting'))
  await until(() => shown().includes('data-backfill="finished"'), 'the finished backfill after the drop')
  // Each stream's continuity (docs/guide/continuity.md): whole again once its backfill ended.
  await until(() => shown().includes('data-continuity="complete"'), 'the stream complete again')
  unmount()
  expect(host.querySelector('solver-notifications-devtools')).toBeNull()
})

it('shows any value a notification may carry (a timestamp in microseconds as given), newest first, and keeps refreshing', async () => {
  live = await startLive()
  const account = accounts[2]
  const events = record(live.client.events({ account, solverId: live.solverOf.rasa }, { resume: true }))
  // open, and the first open's backfill (from subscribing) done: what follows arrives live, in order
  await events.until((v) => v.some((e) => e.type === 'status' && e.backfill?.state === 'finished'))
  const unmount = mountDevtools(live.client, undefined, { initialIsOpen: true, position: 'top-left' })
  const all = document.body.querySelectorAll('solver-notifications-devtools')
  const panel = all[all.length - 1]!
  expect(panel.shadowRoot!.querySelector('[data-position]')?.getAttribute('data-position')).toBe('top-left')
  const items = () => Array.from(panel.shadowRoot!.querySelectorAll(`.stream[data-account="${account}"] li`), (li) => li.textContent ?? '')
  await live.sims.rasa.waitForSubscribers(account)
  const micro = 1_763_700_000_000_000
  const frame = (quote: number, id: string, modifyTime: number) => ({ id, quote_id: quote, temp_quote_id: -quote, modify_time: modifyTime, counterparty_address: account, last_seen_action: 'InstantRFQ', action_status: 'success' })
  await live.sims.rasa.publish(frame(1, 'first', live.sims.rasa.tick()))
  await live.sims.rasa.publish(frame(2, 'micro', micro))
  await live.sims.rasa.publish(frame(3, 'after', live.sims.rasa.tick()))
  await until(() => items().length === 3 && items()[0]!.includes('quote 3'), 'the notification after the bad timestamp')
  expect(items()[1]).toContain(String(micro))
  expect(items().map((t) => /quote (\d+)/.exec(t)![1])).toEqual(['3', '2', '1'])
  // Delivery times come from the diagnostics seam while the panel is open.
  await until(() => /last \d+\.\d s ago, delivery p99 \d+\.\d ms/.test(panel.shadowRoot!.querySelector(`.stream[data-account="${account}"] .timing`)?.textContent ?? ''), 'the stream timing')
  expect(listening()).toBe(true)
  unmount()
  expect(listening()).toBe(false)
})

it('closed, the panel inspects nothing: streams record nothing for it', async () => {
  live = await startLive()
  const events = record(live.client.events({ account: accounts[1], solverId: live.solverOf.rasa }, { resume: true }))
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'open'))
  const inspect = vi.spyOn(live.client, 'inspect')
  const unmount = mountDevtools(live.client)
  await new Promise((r) => setTimeout(r, 0))
  expect(inspect).not.toHaveBeenCalled()
  expect(listening()).toBe(false)
  const panels = document.body.querySelectorAll('solver-notifications-devtools')
  const panel = panels[panels.length - 1]! as HTMLElement & { open: boolean }
  panel.open = true
  expect(inspect).toHaveBeenCalledTimes(1)
  expect(listening()).toBe(true)
  panel.open = false
  expect(listening()).toBe(false)
  unmount()
})
