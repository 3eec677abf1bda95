import { type Live, accounts, record, startLive } from '@solver-notifications/test-support'
import { afterEach, expect, it } from 'vitest'
import { mountDevtools } from './mountDevtools.js'

let live: Live
afterEach(() => live?.stop())

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
  const shown = () => panel.shadowRoot?.innerHTML ?? ''
  await until(() => shown().includes('data-state="open"'), 'the open socket')
  expect(shown()).toContain(`data-account="${accounts[0]}"`)
  expect(shown()).toContain('rasa')
  ;(panel.shadowRoot!.querySelector('button[data-action="drop"]') as HTMLButtonElement).click()
  await events.until((v) => v.some((e) => e.type === 'status' && e.status === 'reconnecting'))
  await until(() => shown().includes('data-backfill="finished"'), 'the finished backfill after the drop')
  unmount()
  expect(host.querySelector('solver-notifications-devtools')).toBeNull()
})
