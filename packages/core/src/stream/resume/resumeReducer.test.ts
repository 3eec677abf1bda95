import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BackfillResult } from '../../search/backfill.js'
import { type ResumeConfig, type ResumeEffect, type ResumeEvent, type ResumeState, floorOf, initialResumeState, isArmed, positionOf, reduceResume } from './resumeReducer.js'

const T = 1_763_700_000
const config: ResumeConfig = { sweepIntervalMs: undefined, poll: undefined, checkpoint: undefined }
const backoff = { baseDelayMs: 100, maxDelayMs: 1_000 }
const status = (s: 'connecting' | 'open' | 'reconnecting' | 'closed', oldestHeld?: number): ResumeEvent => ({ type: 'status', event: { type: 'status', status: s, attempt: 0 }, oldestHeld, now: T * 1000, unsettled: false })

/** Runs events from a state, deep-freezing every state so a reducer that wrote to its input would throw. */
function replay(from: ResumeState, events: ResumeEvent[]): { state: ResumeState; effects: ResumeEffect[][] } {
  let state = deepFreeze(from)
  const effects: ResumeEffect[][] = []
  for (const event of events) {
    const next = reduceResume(state, event)
    state = deepFreeze(next.state)
    effects.push([...next.effects])
  }
  return { state, effects }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

const rows = (truncated: boolean): BackfillResult => ({ notifications: [], truncated: truncated ? { left: 1 } : undefined, foreign: 0, overlong: 0 })
const types = (effects: readonly ResumeEffect[]) => effects.map((e) => e.type)

describe('reduceResume', () => {
  it('a drop under a running backfill: the walk goes on, frames after the drop wait (split), and the next gap starts when it ends', () => {
    const start = initialResumeState(config, T, T * 1000)
    // It joined a socket that was open already: no gap until the drop.
    const { state, effects } = replay(start, [status('open'), { type: 'delivered', modifyTime: T + 5 }, status('reconnecting'), status('open'), status('reconnecting', T + 4)])
    expect(types(effects[0]!)).not.toContain('backfill')
    expect(effects[2]).toContainEqual({ type: 'hold' })
    expect(effects[3]).toContainEqual({ type: 'backfill', since: T + 5, poll: false })
    expect(types(effects[4]!)).toContain('split')
    expect(state).toMatchObject({ phase: 'backfilling', running: T + 5, gapFrom: T + 5, nextGap: T + 4, watermark: T + 5 })
    const done = replay(state, [{ type: 'backfilled', since: T + 5, result: rows(false), now: T * 1000, unsettled: false }, status('open')])
    expect(types(done.effects[0]!)).toEqual(['merge'])
    expect(done.effects[1]).toContainEqual({ type: 'backfill', since: T + 4, poll: false })
    expect(done.state).toMatchObject({ phase: 'backfilling', running: T + 4, nextGap: undefined })
  })

  it('the watermark moves only forward, and only through a delivery or a known start', () => {
    const s0 = initialResumeState(config, T, T * 1000)
    const { state, effects } = replay(s0, [{ type: 'start', since: T - 100 }, { type: 'delivered', modifyTime: T + 3 }, { type: 'delivered', modifyTime: T + 1 }])
    expect(state.watermark).toBe(T + 3)
    expect(effects[1]).toEqual([{ type: 'moved', floor: T - 100 }, { type: 'schedule-checkpoint' }])
    expect(effects[2]).toEqual([])
    expect(floorOf(state)).toBe(T - 100)
  })

  it('a failed backfill releases what is held and arms a retry after max(backoff, Retry-After)', () => {
    const s0 = replay(initialResumeState(config, T, T * 1000), [status('open'), status('reconnecting'), status('open')]).state
    const { state, effects } = replay(s0, [{ type: 'backfill-failed', cause: new Error('down'), retryAfterMs: 5_000, backoff, jitter: 1, now: T * 1000, unsettled: false }])
    expect(effects[0]).toEqual([{ type: 'backfill-failed' }, { type: 'release' }])
    expect(state).toMatchObject({ phase: 'live', running: undefined, failures: 1, timers: { retry: { ms: 5_000 } } })
  })

  it('a failed poll with Retry-After re-arms the next poll no sooner than the service allows, even when one was armed while it ran', () => {
    const polled: ResumeConfig = { sweepIntervalMs: undefined, poll: { afterMs: 0, intervalMs: 500, whenClosed: false }, checkpoint: undefined }
    const poll = (now: number): ResumeEvent => ({ type: 'poll', clientClosed: false, oldestHeld: undefined, now, unsettled: false })
    const s0 = replay(initialResumeState(polled, T, T * 1000), [status('connecting'), status('reconnecting')]).state
    // The first poll starts a backfill; the next timer fires while it runs and is armed again.
    const running = replay(s0, [poll(T * 1000), poll(T * 1000 + 500)])
    expect(running.state.running).toBeDefined()
    expect(isArmed(running.state, 'poll')).toBe(true)
    const armedWhileRunning = running.state.timers?.poll
    const failed = replay(running.state, [{ type: 'backfill-failed', cause: new Error('429'), retryAfterMs: 3_000, backoff, jitter: 1, now: T * 1000 + 600, unsettled: false }])
    // The poll armed while it ran is called off and armed again (a new entry: the stream re-arms its timer):
    // 3 s at the earliest, plus its jitter (a fifth of the 500 ms interval either side of it, so never before).
    expect(failed.state.timers?.poll).toEqual({ ms: 3_000, spread: 200 })
    expect(failed.state.timers?.poll).not.toBe(armedWhileRunning)
  })

  it('disposed is terminal: every event after it leaves the state as it is and does nothing', () => {
    const disposed = replay(initialResumeState(config, T, T * 1000), [status('open'), { type: 'dispose' }]).state
    expect(disposed.phase).toBe('disposed')
    for (const event of [status('open'), { type: 'start', since: undefined } as const, { type: 'delivered', modifyTime: T + 9 } as const, { type: 'complete' } as const]) {
      const next = reduceResume(disposed, event)
      expect(next.state).toBe(disposed)
      expect(next.effects).toEqual([])
    }
  })

  it('the position is never later than an open gap or a held frame', () => {
    const s = replay(initialResumeState(config, T, T * 1000), [status('open'), { type: 'delivered', modifyTime: T + 10 }, status('reconnecting', T + 8)]).state
    expect(positionOf(s, T + 8, true)).toBe(T + 8)
    expect(positionOf(s, undefined, true)).toBe(T + 8)
    expect(positionOf(initialResumeState(config, T, T * 1000), undefined, false)).toBeUndefined()
  })
})

const event: fc.Arbitrary<ResumeEvent> = fc.oneof(
  fc.constantFrom<ResumeEvent>({ type: 'retry' }, { type: 'sweep' }, { type: 'complete' }, { type: 'dispose' }),
  fc.record({
    type: fc.constant('status' as const),
    event: fc.record({
      type: fc.constant('status' as const),
      status: fc.constantFrom('connecting' as const, 'open' as const, 'reconnecting' as const, 'closed' as const),
      attempt: fc.nat(3),
      closeReason: fc.constantFrom(undefined, 'client closed', 'refused'),
    }),
    oldestHeld: fc.option(fc.integer({ min: T - 50, max: T + 50 }), { nil: undefined }),
    now: fc.constant(T * 1000),
    unsettled: fc.boolean(),
  }),
  fc.record({ type: fc.constant('delivered' as const), modifyTime: fc.integer({ min: T - 50, max: T + 50 }) }),
  fc.record({ type: fc.constant('backfilled' as const), since: fc.integer({ min: T - 50, max: T + 50 }), result: fc.boolean().map(rows), now: fc.constant(T * 1000), unsettled: fc.boolean() }),
  fc.record({ type: fc.constant('backfill-failed' as const), cause: fc.constant('down'), retryAfterMs: fc.option(fc.nat(5_000), { nil: undefined }), backoff: fc.constant(backoff), jitter: fc.double({ min: 0, max: 1, noNaN: true }), now: fc.constant(T * 1000), unsettled: fc.boolean() }),
  fc.record({ type: fc.constant('poll' as const), clientClosed: fc.boolean(), oldestHeld: fc.constant(undefined), now: fc.integer({ min: T * 1000, max: T * 1000 + 60_000 }), unsettled: fc.boolean() }),
  fc.record({ type: fc.constant('checkpoint' as const), since: fc.option(fc.integer({ min: T - 50, max: T + 50 }), { nil: undefined }) }),
)

it('over random event sequences: pure (no input changed, same input same output), one backfill at a time, the watermark never goes back, disposed is terminal', () => {
  const configs = fc.record({
    sweepIntervalMs: fc.option(fc.constant(30_000), { nil: undefined }),
    poll: fc.option(fc.record({ afterMs: fc.constant(5_000), intervalMs: fc.constant(5_000), whenClosed: fc.boolean() }), { nil: undefined }),
    checkpoint: fc.constantFrom(undefined, 'a store'),
  })
  fc.assert(
    fc.property(configs, fc.option(fc.integer({ min: T - 50, max: T }), { nil: undefined }), fc.array(event, { maxLength: 60 }), (cfg, since, events) => {
      let state = deepFreeze(initialResumeState(cfg, T, T * 1000))
      for (const generated of [{ type: 'start', since } as const, ...events]) {
        // History answers only what was asked: a backfill ends only while one runs, and for its own start.
        if ((generated.type === 'backfilled' || generated.type === 'backfill-failed') && state.running === undefined) continue
        const e = generated.type === 'backfilled' ? { ...generated, since: state.running! } : generated
        const ended = e.type === 'backfilled' || e.type === 'backfill-failed'
        const a = reduceResume(state, e)
        const b = reduceResume(state, e)
        expect(b).toEqual(a)
        const backfills = a.effects.filter((x) => x.type === 'backfill').length
        expect(backfills).toBeLessThanOrEqual(1)
        // One at a time: a backfill starts while none runs, or after the step stopped the one that ran (a poll at the open).
        const stopped = a.effects.findIndex((x) => x.type === 'abort')
        if (backfills && !ended && stopped === -1) expect(state.running).toBeUndefined()
        if (backfills && stopped !== -1) expect(stopped).toBeLessThan(a.effects.findIndex((x) => x.type === 'backfill'))
        expect(a.state.watermark).toBeGreaterThanOrEqual(state.watermark)
        expect(a.state.phase === 'backfilling').toBe(a.state.running !== undefined && a.state.phase !== 'disposed')
        if (state.phase === 'disposed') expect(a.state).toBe(state)
        state = deepFreeze(a.state)
      }
    }),
    { numRuns: 500 },
  )
})

it('the phase and the watermark are written in the reducer only', () => {
  const here = dirname(fileURLToPath(import.meta.url))
  for (const file of ['ResumeStream.ts', 'Holdback.ts', 'CheckpointWriter.ts', 'DedupeWindow.ts']) {
    const code = readFileSync(join(here, file), 'utf8')
    expect(code, file).not.toMatch(/\.(phase|watermark)\s*=[^=]/)
  }
})
