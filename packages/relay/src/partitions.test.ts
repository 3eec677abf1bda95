import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_PARTITIONS, type PartitionMember, assignPartitions, partitionOf } from './partitions.js'

const members = (n: number, offset = 0): PartitionMember[] => Array.from({ length: n }, (_, i) => ({ id: `relay-${i + offset}` }))

/** Rounds until nothing moves, each plan carried out at once (every release taken by its new owner). */
function converge(partitions: number, live: PartitionMember[], start: Array<string | undefined> = []): Array<string | undefined> {
  let owners = start
  for (let round = 0; round < 20; round++) {
    const next = [...assignPartitions(partitions, live, (p) => owners[p]).owners]
    if (next.every((o, p) => o === owners[p])) return next
    owners = next
  }
  throw new Error('the assignment did not converge in 20 rounds')
}

const moved = (a: Array<string | undefined>, b: Array<string | undefined>) => a.flatMap((o, p) => (o !== b[p] ? [p] : []))

describe('partitionOf', () => {
  it('is stable and spreads keys evenly', () => {
    expect(partitionOf('42161.beta.0xabc0000000000000000000000000000000000001', 1_024)).toBe(partitionOf('42161.beta.0xabc0000000000000000000000000000000000001', 1_024))
    const counts = new Array(64).fill(0)
    for (let i = 0; i < 64_000; i++) counts[partitionOf(`1.s.0x${i.toString(16).padStart(40, '0')}`, 64)]++
    expect(Math.max(...counts) / 1_000).toBeLessThan(1.15)
    expect(Math.min(...counts) / 1_000).toBeGreaterThan(0.85)
  })
})

describe('assignPartitions', () => {
  it('cold start: every partition owned, the fullest at most 1.2 × the mean, the same plan whatever order the members are seen in', () => {
    const live = members(100)
    const plan = assignPartitions(DEFAULT_PARTITIONS, live, () => undefined)
    expect(plan.owners.every((o) => o !== undefined)).toBe(true)
    expect(Math.max(...plan.counts.values()) / (DEFAULT_PARTITIONS / 100)).toBeLessThanOrEqual(1.2)
    const shuffled = assignPartitions(DEFAULT_PARTITIONS, [...live].reverse(), () => undefined)
    expect(shuffled.owners).toEqual(plan.owners)
  })

  it('a leave moves exactly the leaver’s partitions; a join moves partitions only to the newcomer, about 1/n of them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 120 }), fc.constantFrom(256, 1_024), fc.nat(), (n, partitions, pick) => {
        const live = members(n)
        const before = converge(partitions, live)
        const leaver = live[pick % n]!.id
        const after = converge(
          partitions,
          live.filter((m) => m.id !== leaver),
          before,
        )
        const leaverOwned = before.flatMap((o, p) => (o === leaver ? [p] : []))
        expect(moved(before, after)).toEqual(leaverOwned)

        const joined = converge(partitions, [...live, { id: 'newcomer' }], before)
        const movedOnJoin = moved(before, joined)
        // Whatever did not go to the newcomer was shed by a member above the new cap (caps shrink on a join).
        const newCap = Math.max(Math.ceil(partitions / (n + 1)), Math.floor((1.2 * partitions) / (n + 1)))
        const overCap = new Set(live.map((m) => m.id).filter((id) => before.filter((o) => o === id).length > newCap))
        expect(movedOnJoin.filter((p) => joined[p] !== 'newcomer' && !overCap.has(before[p]!))).toEqual([])
        expect(movedOnJoin.length).toBeGreaterThanOrEqual(Math.floor(0.7 * Math.floor(partitions / (n + 1))))
        expect(movedOnJoin.length).toBeLessThanOrEqual(Math.ceil(partitions / (n + 1)) + 1)
        const counts = [...new Set(joined)].map((id) => joined.filter((o) => o === id).length)
        expect(Math.max(...counts)).toBeLessThanOrEqual(Math.max(Math.ceil(partitions / (n + 1)), Math.floor((1.2 * partitions) / (n + 1))))
      }),
      { numRuns: Number(process.env.PARTITION_RUNS ?? 60) },
    )
  })

  it('orphans keep their planned owner while they are being taken: a plan made with some of them already taken (in any order) gives the rest the same owners, and the result leaves nobody short', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.constantFrom(256, 1_024), fc.nat(), fc.array(fc.nat(), { maxLength: 200 }), (n, partitions, pick, order) => {
        const live = members(n)
        const before = converge(partitions, live)
        const dead = live[pick % n]!.id
        const survivors = live.filter((m) => m.id !== dead)
        // Every survivor plans from the same view at first: the dead member's partitions are orphans.
        const plan = assignPartitions(partitions, survivors, (p) => before[p]).owners
        const orphans = before.flatMap((o, p) => (o === dead ? [p] : []))
        // Some orphans taken (by their planned owners, in any order) before another survivor plans again.
        const view = [...before]
        for (const i of order) {
          const p = orphans[i % orphans.length]!
          view[p] = plan[p]
        }
        const again = assignPartitions(partitions, survivors, (p) => view[p]).owners
        expect(orphans.filter((p) => again[p] !== plan[p])).toEqual([])
        // Nothing else moves, and no survivor is left far below the mean (no claims follow the takeover).
        const settled = converge(partitions, survivors, [...plan])
        expect(moved([...plan], settled)).toEqual([])
      }),
      { numRuns: Number(process.env.PARTITION_RUNS ?? 60) },
    )
  })

  it('holds members to maxPartitions and leaves partitions unowned when nobody has room', () => {
    const plan = assignPartitions(16, [{ id: 'a', maxPartitions: 3 }, { id: 'b', maxPartitions: 5 }], () => undefined)
    expect([plan.counts.get('a'), plan.counts.get('b')]).toEqual([3, 5])
    expect(plan.owners.filter((o) => o === undefined)).toHaveLength(8)
  })

  it('a capped relay beside unlimited ones: every partition is owned whenever the relays together have room (the capped relay counts out of the others\' mean)', () => {
    // One relay capped at 10 of 64 partitions beside an unlimited one: the cap was 1.2 × a mean that
    // counted the capped relay (38), so 16 partitions stayed ownerless for good.
    const one = assignPartitions(64, [{ id: 'capped', maxPartitions: 10 }, { id: 'free' }], () => undefined)
    expect([one.counts.get('capped'), one.counts.get('free')]).toEqual([10, 54])
    expect(one.owners.filter((o) => o === undefined)).toHaveLength(0)
    // Any mix: all owned when capacity allows, none over its own cap, the unlimited within 1.2 × their mean (rounded up).
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.array(fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }), { minLength: 1, maxLength: 8 }), (partitions, caps) => {
        const list = caps.map((maxPartitions, i) => ({ id: `m${i}`, maxPartitions }))
        const plan = assignPartitions(partitions, list, () => undefined)
        const room = list.reduce((n, m) => n + (m.maxPartitions ?? Number.POSITIVE_INFINITY), 0)
        const unowned = plan.owners.filter((o) => o === undefined).length
        expect(unowned).toBe(Math.max(0, partitions - Math.min(room, partitions)))
        for (const m of list) if (m.maxPartitions !== undefined) expect(plan.counts.get(m.id)!).toBeLessThanOrEqual(m.maxPartitions)
      }),
      { numRuns: 200 },
    )
    // Held from before (the plan of a running deployment): the same.
    const held = assignPartitions(64, [{ id: 'capped', maxPartitions: 10 }, { id: 'free' }], (p) => (p < 30 ? 'free' : undefined))
    expect(held.owners.filter((o) => o === undefined)).toHaveLength(0)
  })

  it('a member above its cap (a join shrank it) sheds the partitions it scores lowest for, and only those', () => {
    const owners = Array.from({ length: 64 }, () => 'a')
    const plan = assignPartitions(64, members(2).map((m, i) => ({ id: i === 0 ? 'a' : m.id })), (p) => owners[p])
    expect(plan.counts.get('a')).toBeLessThanOrEqual(plan.cap)
    expect(plan.owners.every((o) => o !== undefined)).toBe(true)
  })
})
