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
      // for…in, not Object.values: no array per object (a 100-row page has hundreds of them). JSON.parse
      // makes plain objects, so every enumerable key is an own one.
      for (const key in node) {
        const child = node[key]
        if (typeof child === 'object' && child !== null) {
          stack.push(child)
          depths.push(depth + 1)
        }
      }
    }
  }
  return false
}
