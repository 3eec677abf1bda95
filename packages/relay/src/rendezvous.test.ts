import { expect, it } from 'vitest'
import { assign } from './rendezvous.js'

const keys = Array.from({ length: 3_000 }, (_, i) => `1.s.0x${i.toString(16).padStart(40, '0')}`)
const members = (ids: string[], max = Number.MAX_SAFE_INTEGER) => ids.map((id) => ({ id, maxAccounts: max }))

it('spreads accounts evenly and deterministically', () => {
  const a = assign(keys, members(['r1', 'r2', 'r3']))
  expect(assign([...keys].reverse(), members(['r3', 'r1', 'r2']))).toEqual(a)
  const counts = new Map<string, number>()
  for (const owner of a.values()) counts.set(owner, (counts.get(owner) ?? 0) + 1)
  for (const n of counts.values()) expect(n).toBeGreaterThan(850)
  expect([...counts.values()].reduce((x, y) => x + y)).toBe(3_000)
})

it('a member joining takes about a quarter and moves nothing else; a member leaving moves only its own', () => {
  const three = assign(keys, members(['r1', 'r2', 'r3']))
  const four = assign(keys, members(['r1', 'r2', 'r3', 'r4']))
  let moved = 0
  for (const k of keys) {
    if (three.get(k) !== four.get(k)) {
      moved++
      expect(four.get(k)).toBe('r4')
    }
  }
  expect(moved).toBeGreaterThan(600)
  expect(moved).toBeLessThan(900)
  const two = assign(keys, members(['r1', 'r3']))
  for (const k of keys) if (three.get(k) !== 'r2') expect(two.get(k)).toBe(three.get(k))
})

it('never gives a member more than maxAccounts; the rest wait when everyone is full', () => {
  const a = assign(keys, members(['r1', 'r2'], 1_000))
  expect(a.size).toBe(2_000)
  expect([...a.values()].filter((o) => o === 'r1')).toHaveLength(1_000)
})
