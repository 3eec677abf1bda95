import { describe, expect, it } from 'vitest'
import { MIN_EARLY_MS, nextRound, READ_TOGETHER_MS, readNow, WAKE_SLACK_MS } from './nextRound.js'

describe('nextRound', () => {
  const base = { now: 10_000, lastFull: 9_000, interval: 5_000, soon: false, wakeAt: undefined }

  it('runs the next full round an interval after the last one started', () => {
    expect(nextRound(base)).toEqual({ delay: 4_000, full: true })
    // A round that overran its interval: the next one at once, still full.
    expect(nextRound({ ...base, lastFull: 4_000 })).toEqual({ delay: 0, full: true })
  })

  it('wakes early, without renewing, just after a lease it waits for runs out', () => {
    expect(nextRound({ ...base, wakeAt: 10_300 })).toEqual({ delay: 300 + WAKE_SLACK_MS, full: false })
    // A wake time after the next full round: that round looks.
    expect(nextRound({ ...base, wakeAt: 13_990 })).toEqual({ delay: 4_000, full: true })
  })

  it('looks again soon when the wake time passed while the last round ran (a lease ran out just after its take was refused)', () => {
    // Before: the next full round, a whole interval later (a SIGKILL re-owned 20 s after the kill, TTL 15 s).
    expect(nextRound({ ...base, wakeAt: 9_999 })).toEqual({ delay: MIN_EARLY_MS, full: false })
    expect(nextRound({ ...base, wakeAt: 10_000 - 60_000 })).toEqual({ delay: MIN_EARLY_MS, full: false })
  })

  it('runs at once, without renewing, when the plan changed (a relay left, a lease was given back)', () => {
    expect(nextRound({ ...base, soon: true, wakeAt: 12_000 })).toEqual({ delay: 0, full: false })
    // ... unless the full round is due anyway.
    expect(nextRound({ ...base, soon: true, lastFull: 5_000 })).toEqual({ delay: 0, full: true })
  })

  it('reads a takeover in one go when the rest of its leases run out within READ_TOGETHER_MS, and puts a read off only once', () => {
    const now = 10_000
    // Nothing waited for, or only leases held for a long while yet: read now.
    expect(readNow({ now, taken: 3, waiting: [], putOff: false })).toBe(true)
    expect(readNow({ now, taken: 3, waiting: [now + 14_000, undefined], putOff: false })).toBe(true)
    // The rest of a dead relay's leases run out in 260 ms: the next round reads both batches.
    expect(readNow({ now, taken: 3, waiting: [now + 14_000, now + 260], putOff: false })).toBe(false)
    expect(readNow({ now, taken: 3, waiting: [now + READ_TOGETHER_MS], putOff: false })).toBe(false)
    expect(readNow({ now, taken: 3, waiting: [now + READ_TOGETHER_MS + 1], putOff: false })).toBe(true)
    // An expiry already past (a lease some other relay took meanwhile, a round running late) is no reason to wait.
    expect(readNow({ now, taken: 3, waiting: [now - 5], putOff: false })).toBe(true)
    // The round after one that put its read off reads, whatever still waits.
    expect(readNow({ now, taken: 3, waiting: [now + 100], putOff: true })).toBe(true)
  })

  it('a round that took nothing does not spend the put-off: the takeover is still read in one go', () => {
    // The rounds of a survivor after a SIGKILL (relay scale bench, 4 relays): woken by the dead relay's
    // heartbeat running out 12 ms before its first lease, the first round took none of its 86 partitions,
    // the next 66, the last 20. Before, the first round spent the put-off: two reads (two scans of the
    // accounts bucket side by side, 4-5 s instead of 3 s; re-owned 2.2 s after the last lease ran out).
    const rounds = [
      { now: 10_000, taken: 0, waiting: [10_012, 10_120, 10_255] },
      { now: 10_127, taken: 66, waiting: [10_255] },
      { now: 10_386, taken: 20, waiting: [] },
    ]
    let putOff = false
    const reads: number[] = []
    let unread = 0
    for (const round of rounds) {
      unread += round.taken
      putOff = !readNow({ ...round, putOff })
      if (!putOff && unread > 0) {
        reads.push(unread)
        unread = 0
      }
    }
    expect(reads).toEqual([86])
  })
})
