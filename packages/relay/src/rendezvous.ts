/** One live relay as the assignment sees it. */
export interface Member {
  id: string
  /** accounts it may hold at most */
  maxAccounts: number
}

/** FNV-1a over the pair, then a final mix: a stable pseudo-random score per (member, account). */
function score(member: string, key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < member.length; i++) h = Math.imul(h ^ member.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ 0x2f, 0x01000193)
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  return h >>> 0
}

/**
 * Rendezvous (highest random weight) hashing with capacities: each account goes to the member that
 * scores highest for it among those with room, accounts taken in key order. Every relay computes the
 * same answer from the same view, so they agree without talking; a member joining or leaving moves
 * only the accounts it wins or held (about 1/n of them), which is what makes rebalancing cheap.
 */
export function assign(keys: readonly string[], members: readonly Member[]): Map<string, string> {
  const out = new Map<string, string>()
  if (members.length === 0) return out
  const room = new Map(members.map((m) => [m.id, m.maxAccounts]))
  for (const key of [...keys].sort()) {
    let best: string | undefined
    let bestScore = -1
    for (const m of members) {
      if (room.get(m.id)! <= 0) continue
      const s = score(m.id, key)
      if (s > bestScore || (s === bestScore && m.id < best!)) {
        best = m.id
        bestScore = s
      }
    }
    if (best === undefined) continue // every member is full: the account waits for room
    out.set(key, best)
    room.set(best, room.get(best)! - 1)
  }
  return out
}
