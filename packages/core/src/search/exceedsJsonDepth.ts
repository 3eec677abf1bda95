/**
 * Whether JSON text nests arrays and objects deeper than `limit`. Checked on a response's text before
 * it is parsed: `JSON.parse` itself copes with 100,000 levels, but everything after it that walks a
 * value (a row check, `JSON.stringify` of an error body or a relayed notification, the structured clone
 * of a cross-tab message) would overflow the stack with a `RangeError`. One pass over the characters,
 * strings skipped; real search bodies are 4 or 5 levels deep.
 */
export function exceedsJsonDepth(text: string, limit: number): boolean {
  let depth = 0
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // Skip the string, escapes included.
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i)
        if (s === BACKSLASH) i++
        else if (s === QUOTE) break
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
