import type { NotificationsStreamClient } from '@solver-notifications/core'
import type { DevtoolsOptions } from './DevtoolsElement.js'

/** What `use:devtools` takes: a client, or a client with the panel's options. */
export type DevtoolsActionParameter = NotificationsStreamClient | ({ client: NotificationsStreamClient } & DevtoolsOptions)

const split = (parameter: DevtoolsActionParameter): { client: NotificationsStreamClient; options: DevtoolsOptions } =>
  'client' in parameter && typeof (parameter as { inspect?: unknown }).inspect !== 'function'
    ? { client: parameter.client, options: { initialIsOpen: parameter.initialIsOpen, position: parameter.position } }
    : { client: parameter as NotificationsStreamClient, options: {} }

/**
 * The devtools as a Svelte action (`use:devtools`): a toggle in a corner that opens the panel over the
 * page; the panel's code loads with a dynamic import.
 *
 * @example
 * <div use:devtools={{ client, initialIsOpen: false, position: 'bottom-right' }}></div>
 */
export function devtools(node: HTMLElement, parameter: DevtoolsActionParameter): { update(parameter: DevtoolsActionParameter): void; destroy(): void } {
  let unmount: (() => void) | undefined
  let gone = false
  const mount = (next: DevtoolsActionParameter) => {
    void import('./mountDevtools.js').then(({ mountDevtools }) => {
      if (gone) return
      unmount?.()
      const { client, options } = split(next)
      unmount = mountDevtools(client, node, options)
    })
  }
  mount(parameter)
  return {
    update: (next) => mount(next),
    destroy: () => {
      gone = true
      unmount?.()
    },
  }
}
