import { describe, expect, it } from 'vitest'
import { PartitionSlots, type SlotEffect } from './PartitionSlots.js'

const TTL = 15_000
const MARGIN = 2_000
const types = (effects: SlotEffect[]) => effects.map((e) => e.type)

/** A slot taken, claimed and read: held at `epoch`. */
function held(slots: PartitionSlots, partition: number, now = 1_000): number {
  slots.apply({ type: 'take', partition })
  const epoch = slots.get(partition)!.epoch
  slots.apply({ type: 'taken', partition, epoch, sentAt: now, revision: 10 })
  slots.apply({ type: 'load', now })
  slots.apply({ type: 'claimed', partition, epoch, ok: true })
  slots.apply({ type: 'read', partition, epoch, ok: true })
  return epoch
}

describe('PartitionSlots', () => {
  it('walks a partition through its phases: taking, claiming, reading, held', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    expect(slots.apply({ type: 'take', partition: 4 })).toEqual([{ type: 'take', partition: 4, epoch: 1 }])
    expect(slots.get(4)?.phase).toBe('taking')
    expect(slots.apply({ type: 'taken', partition: 4, epoch: 1, sentAt: 1_000, revision: 7 })).toEqual([])
    expect(slots.get(4)).toMatchObject({ phase: 'claiming', revision: 7, confirmedUntil: 1_000 + TTL - MARGIN })
    expect(slots.apply({ type: 'load', now: 2_000 })).toEqual([{ type: 'claim', batch: [{ partition: 4, epoch: 1 }] }])
    expect(types(slots.apply({ type: 'claimed', partition: 4, epoch: 1, ok: true }))).toEqual(['adopt', 'reconcile'])
    expect(slots.get(4)?.phase).toBe('reading')
    expect(slots.apply({ type: 'claimsDone', batch: [{ partition: 4, epoch: 1 }], claimMs: 3 })).toEqual([{ type: 'read', batch: [{ partition: 4, epoch: 1 }], claimMs: 3 }])
    slots.apply({ type: 'read', partition: 4, epoch: 1, ok: true })
    expect(slots.get(4)?.phase).toBe('held')
    expect(slots.isMine(4)).toBe(true)
  })

  it('a release waits for the claim in flight before its accounts stop (a later claim would fence the next owner)', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    slots.apply({ type: 'take', partition: 1 })
    slots.apply({ type: 'taken', partition: 1, epoch: 1, sentAt: 1_000, revision: 3 })
    slots.apply({ type: 'load', now: 1_000 })
    expect(slots.apply({ type: 'plan', mine: new Set() })).toEqual([{ type: 'detach', partition: 1 }])
    expect(slots.get(1)).toMatchObject({ phase: 'releasing', waiting: 'claim' })
    expect(slots.apply({ type: 'claimed', partition: 1, epoch: 1, ok: true })).toEqual([
      { type: 'adopt', partition: 1, epoch: 1 },
      { type: 'stop', partition: 1, epoch: 1 },
    ])
    expect(slots.apply({ type: 'stopped', partition: 1, epoch: 1 })).toEqual([{ type: 'giveBack', partition: 1, revision: 3 }])
    expect(slots.get(1)).toBeUndefined()
  })

  it('the give-back waits for the renewal in flight and uses the revision it returned', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    const epoch = held(slots, 2)
    expect(slots.apply({ type: 'renew', partition: 2 })).toEqual([{ type: 'renew', partition: 2, epoch, revision: 10 }])
    expect(types(slots.apply({ type: 'release', partition: 2 }))).toEqual(['detach', 'stop'])
    expect(slots.apply({ type: 'stopped', partition: 2, epoch })).toEqual([])
    expect(slots.get(2)?.waiting).toBe('renewal')
    // No second renewal starts once the give-back is decided.
    expect(slots.apply({ type: 'renew', partition: 2 })).toEqual([])
    expect(slots.apply({ type: 'renewed', partition: 2, epoch, sentAt: 5_000, result: 11 })).toEqual([{ type: 'giveBack', partition: 2, revision: 11 }])
  })

  it('a result of an earlier take of the same partition is ignored; its claimed record is discarded', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    slots.apply({ type: 'take', partition: 0 })
    slots.apply({ type: 'taken', partition: 0, epoch: 1, sentAt: 1_000, revision: 1 })
    slots.apply({ type: 'load', now: 1_000 })
    expect(slots.apply({ type: 'lose', partition: 0, why: 'another relay claimed its checkpoints' })).toEqual([{ type: 'lost', partition: 0, why: 'another relay claimed its checkpoints', revision: 1 }])
    slots.apply({ type: 'take', partition: 0 })
    expect(slots.get(0)?.epoch).toBe(2)
    expect(slots.apply({ type: 'claimed', partition: 0, epoch: 1, ok: true })).toEqual([{ type: 'discard', partition: 0, epoch: 1 }])
    expect(slots.apply({ type: 'renewed', partition: 0, epoch: 1, sentAt: 2_000, result: 'lost' })).toEqual([])
    expect(slots.get(0)?.phase).toBe('taking')
  })

  it('fences a lease not confirmed in time, and never claims under one that may have run out', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    held(slots, 5, 1_000)
    slots.apply({ type: 'take', partition: 6 })
    slots.apply({ type: 'taken', partition: 6, epoch: 2, sentAt: 1_000, revision: 4 })
    expect(slots.apply({ type: 'load', now: 1_000 + TTL - MARGIN })).toEqual([{ type: 'lost', partition: 6, why: 'renewal not confirmed in time', revision: 4 }])
    expect(slots.apply({ type: 'fence', now: 1_000 + TTL - MARGIN })).toEqual([{ type: 'lost', partition: 5, why: 'renewal not confirmed in time', revision: 10 }])
    expect(slots.size).toBe(0)
  })

  it('a drain releases every slot, takes nothing, and gives back a take that lands after it', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    const epoch = held(slots, 1)
    slots.apply({ type: 'take', partition: 2 })
    expect(slots.apply({ type: 'drain' })).toEqual([
      { type: 'detach', partition: 1 },
      { type: 'stop', partition: 1, epoch },
    ])
    expect(slots.apply({ type: 'take', partition: 3 })).toEqual([])
    expect(slots.apply({ type: 'taken', partition: 2, epoch: 2, sentAt: 1_000, revision: 9 })).toEqual([{ type: 'returnTake', partition: 2, revision: 9 }])
    expect(slots.apply({ type: 'stopped', partition: 1, epoch })).toEqual([{ type: 'giveBack', partition: 1, revision: 10 }])
    expect(slots.size).toBe(0)
  })

  it('a failed claim or read gives the partition back (never held without its accounts)', () => {
    const slots = new PartitionSlots({ leaseTtlMs: TTL, fenceMarginMs: MARGIN })
    slots.apply({ type: 'take', partition: 1 })
    slots.apply({ type: 'taken', partition: 1, epoch: 1, sentAt: 1_000, revision: 2 })
    slots.apply({ type: 'load', now: 1_000 })
    expect(types(slots.apply({ type: 'claimed', partition: 1, epoch: 1, ok: false }))).toEqual(['detach', 'stop'])
    const epoch = held(slots, 2)
    expect(types(slots.apply({ type: 'read', partition: 2, epoch, ok: false }))).toEqual(['detach', 'stop'])
  })
})
