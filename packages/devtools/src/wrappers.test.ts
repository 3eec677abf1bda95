import { type Live, startLive } from '@solver-notifications/test-support'
import { afterEach, expect, it } from 'vitest'
import { createApp, h } from 'vue'
import { devtools } from './svelte.js'
import { NotificationsDevtools } from './vue.js'

let live: Live
afterEach(() => live?.stop())

const until = async (test: () => boolean, what: string) => {
  for (let i = 0; i < 400 && !test(); i++) await new Promise((r) => setTimeout(r, 10))
  if (!test()) throw new Error(`timed out waiting for ${what}`)
}

it('the Vue component mounts the panel (loaded on mount) and removes it on unmount', async () => {
  live = await startLive()
  const host = document.createElement('div')
  document.body.append(host)
  const app = createApp({ render: () => h(NotificationsDevtools, { client: live.client }) })
  app.mount(host)
  await until(() => host.querySelector('solver-notifications-devtools') !== null, 'the panel')
  expect((host.querySelector('solver-notifications-devtools') as HTMLElement & { client: unknown }).client).toBe(live.client)
  app.unmount()
  expect(host.querySelector('solver-notifications-devtools')).toBeNull()
})

it('the Svelte action mounts the panel into its node, follows a new client, and removes it when destroyed', async () => {
  live = await startLive()
  const node = document.createElement('div')
  document.body.append(node)
  const action = devtools(node, live.client)
  await until(() => node.querySelector('solver-notifications-devtools') !== null, 'the panel')
  const other = (await startLive()) as Live
  action.update(other.client)
  await until(() => (node.querySelector('solver-notifications-devtools') as (HTMLElement & { client: unknown }) | null)?.client === other.client, 'the new client')
  expect(node.querySelectorAll('solver-notifications-devtools')).toHaveLength(1)
  action.destroy()
  expect(node.querySelector('solver-notifications-devtools')).toBeNull()
  await other.stop()
})
