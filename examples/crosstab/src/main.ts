import { type NotificationEvent, NotificationsObserver } from '@solver-notifications/core'
import { exampleClient } from 'example-shared/appConfig'
import type { Subscription } from 'rxjs'

// One client per tab with crossTab on; the browser test drives it through window.harness.
const { client } = exampleClient(location.search, { crossTab: { name: 'harness' } })
const streams = new Map<string, { events: Array<{ type: string; id?: string | null; status?: string }>; sub: Subscription }>()
const toasts: string[] = []
const stops = new Map<string, () => void>()

const harness = {
  subscribe(name: string, account: `0x${string}`, solverId: 'alpha' | 'beta', resume: boolean) {
    const events: Array<{ type: string; id?: string | null; status?: string }> = []
    const sub = client.events({ account, solverId }, { resume }).subscribe((e: NotificationEvent) => {
      events.push(e.type === 'notification' ? { type: 'notification', id: e.notification.id } : e.type === 'status' ? { type: 'status', status: e.status } : { type: 'error' })
    })
    streams.set(name, { events, sub })
  },
  unsubscribe(name: string) {
    streams.get(name)?.sub.unsubscribe()
  },
  events: (name: string) => streams.get(name)?.events ?? [],
  ids: (name: string) => (streams.get(name)?.events ?? []).filter((e) => e.type === 'notification').map((e) => e.id),
  lastStatus: (name: string) => (streams.get(name)?.events ?? []).filter((e) => e.type === 'status').at(-1)?.status,
  /** useNotifications' core with notifyOnce: a "toast" per notification, in one tab only */
  toastOnce(account: `0x${string}`, solverId: 'alpha' | 'beta') {
    const observer = new NotificationsObserver(client, { account, solverId, notifyOnce: true, onNotification: (n) => toasts.push(String(n.id)) })
    stops.set(`${account}:${solverId}`, observer.subscribe(() => {}))
  },
  toasts: () => toasts,
  isNotifier: (account: string, solverId: string) => client.crossTab?.isNotifier(`${account.toLowerCase()}  ${solverId}`) ?? true,
  stats: () => client.stats(),
  post: (message: unknown) => {
    const channel = new BroadcastChannel('solver-notifications:harness')
    channel.postMessage(message)
    channel.close()
  },
}
;(window as unknown as { harness: typeof harness }).harness = harness
setInterval(() => {
  document.getElementById('role')!.textContent = client.stats().crossTab?.role ?? 'none'
}, 100)
