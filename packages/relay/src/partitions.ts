/** Partitions of a deployment when none are configured: fixed for its life (docs/architecture.md, "Relay"). */
export const DEFAULT_PARTITIONS = 1_024

/** How far the fullest relay may be above the mean: the capacity cap of the assignment. */
export const MAX_OVER_MEAN = 1.2

/** FNV-1a over a string, then a final mix: stable across processes and versions (never change it: keys would move). */
export function hashKey(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return mix(h)
}

function mix(x: number): number {
  let h = x
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * The partition an account key belongs to: `hash(key) mod partitions`.
 *
 * @example
 * partitionOf('42161.beta.0xabc0000000000000000000000000000000000001', 1_024) // a number in [0, 1024)
 */
export function partitionOf(key: string, partitions: number): number {
  return hashKey(key) % partitions
}

/** One live relay as the assignment sees it. */
export interface PartitionMember {
  id: string
  /** partitions it may hold at most (from its `maxAccounts`); no limit when absent */
  maxPartitions?: number | undefined
}

/** The plan of one round: each partition's owner (undefined when no member has room). */
export interface PartitionPlan {
  readonly owners: ReadonlyArray<string | undefined>
  /** partitions per member, every live member listed */
  readonly counts: ReadonlyMap<string, number>
  /**
   * the cap each member without a lower `maxPartitions` was held to: `floor(MAX_OVER_MEAN × mean)`, but
   * never below `ceil(mean)` (whole partitions), the mean being what is left after the capped members
   */
  readonly cap: number
}

/**
 * Who owns each partition, from the live members and who owns what now; every relay computes the same
 * plan from the same view, so they agree without talking. Rendezvous hashing (each member's score for a
 * partition is a hash of the pair) with three rules, so a change moves only what it must:
 *
 * 1. a partition stays with its owner while the owner is alive and within its cap (a leave moves
 *    only the leaver's partitions: the others' caps only grow);
 * 2. a partition without a live owner (its owner left or died, or it never had one) goes to the
 *    member scoring highest for it among those below their share (the mean, rounded per member), or,
 *    when every share is full, to the least loaded member with room, so no member holds more than
 *    1.2 × the mean (or the mean rounded up, when partitions are few per member). Shares depend only
 *    on the members: a plan made while orphans are being taken gives the rest the same owners;
 * 3. a member holding less than the mean minus one (it just joined) claims the partitions it scores
 *    highest for among all members, up to the mean, from owners holding at least the mean and more
 *    than it (so no donor falls below the mean minus one and starts claiming itself): about `1/n` of
 *    them, the share rendezvous hashing gives it; released, they are orphans that rule 2 gives to
 *    the newcomer (it scores highest for them and is below its share; while donors release them one
 *    by one, it stays below the mean and keeps claiming). After a leave nobody is that far below the
 *    new mean: rule 2 filled every survivor's share with the leaver's partitions, so a leave moves
 *    nothing else.
 *
 * Before rule 2, a member above its cap (caps shrink when a member joins) sheds the partitions it
 * scores lowest for, and rule 2 places them (with the newcomer, the least loaded).
 * Cost: O(partitions × members) per round (1,024 × 100 in a few milliseconds).
 *
 * @example
 * const plan = assignPartitions(1_024, [{ id: 'a' }, { id: 'b' }], (p) => currentOwner[p])
 */
export function assignPartitions(partitions: number, members: readonly PartitionMember[], ownerOf: (partition: number) => string | undefined): PartitionPlan {
  const sorted = [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const n = sorted.length
  const owners: Array<string | undefined> = new Array(partitions).fill(undefined)
  const counts = new Map<string, number>(sorted.map((m) => [m.id, 0]))
  if (n === 0) return { owners, counts, cap: 0 }
  // Capacities by water-filling: a member whose maxPartitions is below its fair share of what is left
  // is held to it, and the others share the rest, so a capped relay never shrinks the others' caps
  // (one relay capped beside an unlimited one left a sixth of the partitions ownerless for good).
  const limit = sorted.map((m) => m.maxPartitions ?? Number.POSITIVE_INFINITY)
  const fixed = new Array<boolean>(n).fill(false)
  let rest = partitions
  let open = n
  for (let changed = true; changed && open > 0; ) {
    changed = false
    for (let i = 0; i < n; i++) {
      if (fixed[i] || limit[i]! * open >= rest) continue
      fixed[i] = true
      rest -= limit[i]!
      open--
      changed = true
    }
  }
  rest = Math.max(0, rest)
  const cap = open > 0 ? Math.max(Math.ceil(rest / open), Math.floor((MAX_OVER_MEAN * rest) / open)) : 0
  const index = new Map(sorted.map((m, i) => [m.id, i]))
  const capOf = sorted.map((_, i) => (fixed[i] ? limit[i]! : Math.min(cap, limit[i]!)))
  // Each open member's rank among the open ones: who gets one more of the remainder.
  const openRank = new Array<number>(n).fill(-1)
  for (let i = 0, r = 0; i < n; i++) if (!fixed[i]) openRank[i] = r++
  const seeds = sorted.map((m) => hashKey(m.id))
  const score = (member: number, partition: number) => mix(seeds[member]! ^ Math.imul(partition + 1, 0x9e3779b1))
  const count = new Array<number>(n).fill(0)
  const ownerIndex = new Int32Array(partitions).fill(-1)

  // Rule 1: live owners keep what they hold.
  for (let p = 0; p < partitions; p++) {
    const owner = ownerOf(p)
    const i = owner === undefined ? undefined : index.get(owner)
    if (i === undefined) continue
    ownerIndex[p] = i
    count[i]!++
  }
  // Above the cap: shed the partitions scored lowest.
  for (let i = 0; i < n; i++) {
    if (count[i]! <= capOf[i]!) continue
    const held: number[] = []
    for (let p = 0; p < partitions; p++) if (ownerIndex[p] === i) held.push(p)
    held.sort((a, b) => score(i, a) - score(i, b) || a - b)
    for (const p of held.slice(0, count[i]! - capOf[i]!)) ownerIndex[p] = -1
    count[i] = capOf[i]!
  }
  // Rule 2: the partitions left without an owner, in partition order, go to the member scoring highest
  // for them among those below their share (the mean; one more for the first `partitions mod n` by id).
  // Shares do not depend on who took what so far: relays planning while orphans are being taken (a
  // takeover after a kill) give every orphan the same owner, whatever was taken first. When every share
  // is full (members held more before), the least loaded member with room takes it.
  const base = open > 0 ? Math.floor(rest / open) : 0
  const shareOf = (i: number) => (fixed[i] ? capOf[i]! : Math.min(capOf[i]!, base + (openRank[i]! < rest % open ? 1 : 0)))
  for (let p = 0; p < partitions; p++) {
    if (ownerIndex[p]! >= 0) continue
    let chosen = -1
    let chosenScore = -1
    for (let i = 0; i < n; i++) {
      if (count[i]! >= shareOf(i)) continue
      const s = score(i, p)
      if (s > chosenScore) {
        chosen = i
        chosenScore = s
      }
    }
    if (chosen < 0) {
      for (let i = 0; i < n; i++) {
        if (count[i]! >= capOf[i]!) continue
        const s = score(i, p)
        if (chosen < 0 || count[i]! < count[chosen]! || (count[i] === count[chosen] && s > chosenScore)) {
          chosen = i
          chosenScore = s
        }
      }
    }
    if (chosen < 0) continue // every member is full: the partition waits for room
    ownerIndex[p] = chosen
    count[chosen]!++
  }
  // Rule 3: a member more than one below the mean claims what it wins outright, from richer owners, up to the mean.
  const meanOf = (i: number) => (fixed[i] ? capOf[i]! : base)
  for (let i = 0; i < n; i++) {
    const mean = meanOf(i)
    if (count[i]! >= mean - 1) continue
    const wins: number[] = []
    for (let p = 0; p < partitions; p++) {
      const owner = ownerIndex[p]!
      if (owner < 0 || best(p, n, score) !== i) continue
      wins.push(p)
    }
    // Richest donors first (a member above the new cap gives before one at the mean), then by score.
    while (count[i]! < Math.min(mean, capOf[i]!)) {
      let pick = -1
      for (const p of wins) {
        const owner = ownerIndex[p]!
        // A donor stays at the mean minus one at least (so it never becomes a claimant itself) and richer than the claimant.
        if (owner === i || count[owner]! < meanOf(owner) || count[owner]! <= count[i]! + 1) continue
        if (pick < 0) pick = p
        else {
          const current = ownerIndex[pick]!
          if (count[owner]! > count[current]! || (count[owner] === count[current] && score(i, p) > score(i, pick))) pick = p
        }
      }
      if (pick < 0) break
      count[ownerIndex[pick]!]!--
      ownerIndex[pick] = i
      count[i]!++
    }
  }
  for (let p = 0; p < partitions; p++) owners[p] = ownerIndex[p]! >= 0 ? sorted[ownerIndex[p]!]!.id : undefined
  for (let i = 0; i < n; i++) counts.set(sorted[i]!.id, count[i]!)
  return { owners, counts, cap }
}

/** The member scoring highest for a partition among all members (ties: the lower index, i.e. the lower id). */
function best(partition: number, n: number, score: (member: number, partition: number) => number): number {
  let chosen = 0
  let chosenScore = score(0, partition)
  for (let i = 1; i < n; i++) {
    const s = score(i, partition)
    if (s > chosenScore) {
      chosen = i
      chosenScore = s
    }
  }
  return chosen
}
