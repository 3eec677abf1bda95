import { expect, it } from 'vitest'
import { classifyNotification } from './classifyNotification.js'

it.each([
  ['success', 'success'],
  ['failed', 'failed'],
  ['seen', 'seen'],
  ['FAILED', 'unknown'],
  ['pending', 'unknown'],
  ['', 'unknown'],
  [null, 'unknown'],
  [undefined, 'unknown'],
] as const)('classifyNotification(%s) → %s', (status, type) => {
  expect(classifyNotification(status)).toBe(type)
})
