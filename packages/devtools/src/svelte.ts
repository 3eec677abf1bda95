import type { NotificationsStreamClient } from '@solver-notifications/core'

/**
 * The devtools panel as a Svelte action (`use:devtools`); the panel's code loads with a dynamic import.
 *
 * @example
 * <div use:devtools={client}></div>
 */
export function devtools(node: HTMLElement, client: NotificationsStreamClient): { update(client: NotificationsStreamClient): void; destroy(): void } {
  let unmount: (() => void) | undefined
  let gone = false
  const mount = (c: NotificationsStreamClient) => {
    void import('./mountDevtools.js').then(({ mountDevtools }) => {
      if (gone) return
      unmount?.()
      unmount = mountDevtools(c, node)
    })
  }
  mount(client)
  return {
    update: (next) => mount(next),
    destroy: () => {
      gone = true
      unmount?.()
    },
  }
}
