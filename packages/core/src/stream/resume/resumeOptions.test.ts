import { expect, it } from 'vitest'
import { memoryCheckpoints } from './CheckpointStore.js'
import { LATEST_STATE_IS_WHOLE, resolveResumeSettings } from './resumeOptions.js'

it('streams resolved with the same options share one frozen settings object; any other option, store or poll makes its own', () => {
  const a = resolveResumeSettings({ since: 1_763_700_000, poll: false }, 10_000)
  const b = resolveResumeSettings({ since: 1_763_700_500, poll: false }, 10_000)
  expect(b).toBe(a)
  expect(Object.isFrozen(a)).toBe(true)
  // A stream's own position is never in what streams share.
  expect(a).not.toHaveProperty('since')
  expect(a).toEqual({ checkpoint: undefined, maxBackfillRows: 10_000, maxHeldFrames: 10_000, sweepIntervalMs: undefined, verifyMs: 60_000, dedupeWindow: 2_048, checkpointTimeoutMs: 10_000, poll: undefined, latestStateIsWhole: false })

  const rows = resolveResumeSettings({ poll: false, maxBackfillRows: 50 }, 10_000)
  expect(rows).not.toBe(a)
  expect(rows.maxBackfillRows).toBe(50)
  const store = memoryCheckpoints()
  const stored = resolveResumeSettings({ poll: false, checkpoint: store }, 10_000)
  expect(stored.checkpoint).toBe(store)
  expect(resolveResumeSettings({ poll: false, checkpoint: memoryCheckpoints() }, 10_000)).not.toBe(stored)
  const polled = resolveResumeSettings(true, 10_000)
  expect(polled.poll).toEqual({ afterMs: 5_000, intervalMs: 5_000, whenClosed: false })
  expect(resolveResumeSettings({}, 10_000)).toBe(polled)
  const slower = resolveResumeSettings({ poll: { intervalMs: 9_000 } }, 10_000)
  expect(slower).not.toBe(polled)
  expect(slower.poll).toEqual({ afterMs: 5_000, intervalMs: 9_000, whenClosed: false })
  expect(resolveResumeSettings(true, 3_000)).not.toBe(resolveResumeSettings(true, 10_000))
  // A quote book's stream (its latest states are all it needs) shares nothing with a notification stream's.
  const book = resolveResumeSettings({ [LATEST_STATE_IS_WHOLE]: true } as never, 10_000)
  expect(book).not.toBe(polled)
  expect(book.latestStateIsWhole).toBe(true)
  // Verification: on by default, tuned or off; anything else is refused with how to fix it.
  expect(resolveResumeSettings({ verify: false }, 10_000).verifyMs).toBeUndefined()
  expect(resolveResumeSettings({ verify: { intervalMs: 5_000 } }, 10_000).verifyMs).toBe(5_000)
  for (const verify of [{ intervalMs: 10 }, { intervalMs: Number.POSITIVE_INFINITY }, 'yes', 5_000]) {
    expect(() => resolveResumeSettings({ verify } as never, 10_000)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('resume.verify must be false or { intervalMs }') }))
  }
})
