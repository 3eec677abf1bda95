import type { Notification } from './types.js'

/** Keys of {@link Notification} whose value is a number or null. */
type NumberOrNullKey = { [K in keyof Notification]-?: null extends Notification[K] ? (Notification[K] extends number | null ? K : never) : never }[keyof Notification]

/**
 * The normalized fields that hold a number or null, whichever protocol filled them: a notification that
 * crossed a boundary (from another tab) must keep these types, like a frame its codec checked.
 */
export const NUMBER_OR_NULL_FIELDS: ReadonlySet<string> = /* @__PURE__ */ new Set<NumberOrNullKey>(['tempQuoteId', 'errorCode', 'orderType', 'version', 'createTime', 'modifyTime'])
