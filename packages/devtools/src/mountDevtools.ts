import type { NotificationsStreamClient } from '@solver-notifications/core'
import { DEVTOOLS_TAG, type DevtoolsOptions, defineDevtoolsElement } from './DevtoolsElement.js'

/**
 * Adds the devtools to the page for `client`: a toggle button in a corner that opens a panel over the
 * page (sockets, resume streams, backfills, the newest notifications first, "drop socket", "copy
 * diagnostics"). `element` is where the element lives in the DOM (default: the end of
 * `document.body`); it floats over the page wherever it is. Returns what removes it again.
 *
 * @example
 * const unmount = mountDevtools(client, undefined, { initialIsOpen: false, position: 'bottom-right' })
 */
export function mountDevtools(client: NotificationsStreamClient, element?: HTMLElement, options: DevtoolsOptions = {}): () => void {
  defineDevtoolsElement()
  const panel = document.createElement(DEVTOOLS_TAG) as HTMLElement & { client: NotificationsStreamClient }
  if (options.position) panel.setAttribute('position', options.position)
  if (options.initialIsOpen) panel.setAttribute('open', '')
  panel.client = client
  ;(element ?? document.body).append(panel)
  return () => panel.remove()
}
