import type { NotificationType } from './types.js'

/**
 * Maps `action_status` to a {@link NotificationType}; anything unrecognised is `unknown`, never a false `failed`.
 *
 * @example
 * classifyNotification('seen') // 'seen'
 * classifyNotification('weird') // 'unknown'
 */
export function classifyNotification(actionStatus: string | null | undefined): NotificationType {
  switch (actionStatus) {
    case 'success':
    case 'failed':
    case 'seen':
      return actionStatus
    default:
      return 'unknown'
  }
}
