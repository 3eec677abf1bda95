import type { NotificationsStreamClient } from '@solver-notifications/core'
import { DEVTOOLS_TAG, defineDevtoolsElement } from './DevtoolsElement.js'

/**
 * Shows the devtools panel of `client` inside `element` (default: the end of `document.body`):
 * sockets, resume streams, backfills, the newest notifications, "drop socket" and "copy diagnostics".
 * Returns what removes it again.
 *
 * @example
 * const unmount = mountDevtools(client, document.querySelector('#devtools')!)
 */
export function mountDevtools(client: NotificationsStreamClient, element?: HTMLElement): () => void {
  defineDevtoolsElement()
  const panel = document.createElement(DEVTOOLS_TAG) as HTMLElement & { client: NotificationsStreamClient }
  panel.client = client
  ;(element ?? document.body).append(panel)
  return () => panel.remove()
}
