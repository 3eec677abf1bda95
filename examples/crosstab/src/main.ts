import { type NotificationEvent, NotificationsObserver } from '@solver-notifications/core'
import { exampleClient } from 'example-shared/appConfig'
import type { Subscription } from 'rxjs'

// One client per tab with crossTab on; the browser test drives it through window.harness.
const { client } = exampleClient(location.search, { crossTab: { name: 'harness' } })
const streams = new Map<string, { events: Array<{ type: string; id?: string | null; status?: string; [more: string]: unknown }>; sub: Subscription }>()
const toasts: string[] = []
const stops = new Map<string, () => void>()

const harness = {
  subscribe(name: string, account: `0x${string}`, solverId: 'alpha' | 'beta', resume: boolean) {
    const events: Array<{ type: string; id?: string | null; status?: string; [more: string]: unknown }> = []
    const sub = client.events({ account, solverId }, { resume }).subscribe((e: NotificationEvent) => {
      // what a failing test prints: when, from where, and the backfill's part
      const at = Date.now()
      events.push(
        e.type === 'notification'
          ? { type: 'notification', id: e.notification.id, at, source: e.notification.source, modifyTime: e.notification.modifyTime }
          : e.type === 'status'
            ? { type: 'status', status: e.status, at, backfill: e.backfill && JSON.stringify(e.backfill), reason: e.closeReason }
            : e.type === 'continuity'
              ? { type: 'continuity', at, state: e.continuity.state, reason: e.continuity.reason }
              : { type: 'error', at, code: e.error.code, message: e.error.message },
      )
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
  /** posts a raw message on a channel: the pool's own is `solver-notifications:harness:v2` (name and message version) */
  post: (message: unknown, name = 'solver-notifications:harness:v2') => {
    const channel = new BroadcastChannel(name)
    channel.postMessage(message)
    channel.close()
  },
}
;(window as unknown as { harness: typeof harness }).harness = harness
setInterval(() => {
  document.getElementById('role')!.textContent = client.stats().crossTab?.role ?? 'none'
}, 100)
