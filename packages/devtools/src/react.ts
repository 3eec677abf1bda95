import type { NotificationsStreamClient } from '@solver-notifications/core'
import { createElement, useEffect, useRef } from 'react'
import type { DevtoolsOptions } from './DevtoolsElement.js'

/**
 * The devtools panel as a React component; the panel's code loads with a dynamic import when it mounts.
 *
 * @example
 * {showDevtools && <NotificationsDevtools client={client} />}
 */
export function NotificationsDevtools({ client, initialIsOpen, position }: { client: NotificationsStreamClient } & DevtoolsOptions) {
  const ref = useRef<HTMLDivElement>(null)
  // Applied when the panel mounts (like TanStack's devtools): after that the toggle belongs to the user, not to re-renders.
  const options = useRef({ initialIsOpen, position })
  useEffect(() => {
    let unmount: (() => void) | undefined
    let gone = false
    void import('./mountDevtools.js').then(({ mountDevtools }) => {
      if (!gone && ref.current) unmount = mountDevtools(client, ref.current, options.current)
    })
    return () => {
      gone = true
      unmount?.()
    }
  }, [client])
  return createElement('div', { ref, 'data-solver-notifications-devtools': '' })
}
