import type { NotificationsStreamClient } from '@solver-notifications/core'
import { createElement, useEffect, useRef } from 'react'

/**
 * The devtools panel as a React component; the panel's code loads with a dynamic import when it mounts.
 *
 * @example
 * {showDevtools && <NotificationsDevtools client={client} />}
 */
export function NotificationsDevtools({ client }: { client: NotificationsStreamClient }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    let unmount: (() => void) | undefined
    let gone = false
    void import('./mountDevtools.js').then(({ mountDevtools }) => {
      if (!gone && ref.current) unmount = mountDevtools(client, ref.current)
    })
    return () => {
      gone = true
      unmount?.()
    }
  }, [client])
  return createElement('div', { ref, 'data-solver-notifications-devtools': '' })
}
