/**
 * Whether a parsed JSON value nests arrays and objects deeper than `limit`. Checked on every response
 * right after parsing: `JSON.parse` itself copes with 100,000 levels, but everything after it that
 * walks a value (a row check, `JSON.stringify` of an error body or a relayed notification, the
 * structured clone of a cross-tab message) would overflow the stack with a `RangeError`. Iterative,
 * and it visits containers only (a 100-row page is a few thousand), stopping at the first one too deep.
 */
export function exceedsJsonDepth(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  const stack: unknown[] = [value]
  const depths: number[] = [1]
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[]
    const depth = depths.pop()!
    if (depth > limit) return true
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child = node[i]
        if (typeof child === 'object' && child !== null) {
          stack.push(child)
          depths.push(depth + 1)
        }
      }
    } else {
      const children = Object.values(node)
      for (let i = 0; i < children.length; i++) {
        const child = children[i]
        if (typeof child === 'object' && child !== null) {
          stack.push(child)
          depths.push(depth + 1)
        }
      }
    }
  }
  return false
}
