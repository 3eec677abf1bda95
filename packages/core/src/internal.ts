/**
 * `@solver-notifications/core/internal`: helpers the relay shares with core. Not part of the public
 * API: they may change in any release without notice. Apps use `redactUrl` from the root entry.
 */
export { isPlausiblePosition, isPlausibleTime } from './utils/plausibleTime.js'
export { redactCause, redactText, redactUrl } from './utils/redactUrl.js'
export { checkpointKey } from './stream/resume/CheckpointStore.js'
