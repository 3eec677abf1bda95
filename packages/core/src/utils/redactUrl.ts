/**
 * A URL safe to print: its userinfo and every query value become `***` (`wss://u:p@host/ws?token=abc`
 * → `wss://***@host/ws?token=***`). Every message, status event, log line and stats field that names
 * a URL goes through it, because tokens travel in socket URLs (browsers cannot set socket headers).
 * Works on strings that are not valid URLs too: nothing is parsed, so nothing can throw.
 *
 * @example
 * redactUrl('wss://user:S3CRET@solver.example/ws?token=S3CRET') // 'wss://***@solver.example/ws?token=***'
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#')
  const withoutHash = hash === -1 ? url : url.slice(0, hash)
  const query = withoutHash.indexOf('?')
  const head = (query === -1 ? withoutHash : withoutHash.slice(0, query)).replace(USERINFO, '$1***@')
  if (query === -1) return head
  // A bare entry (`?abc123`) is all value; a named one keeps its name.
  const entries = withoutHash
    .slice(query + 1)
    .split('&')
    .map((entry) => {
      const eq = entry.indexOf('=')
      return eq === -1 ? (entry === '' ? '' : '***') : `${entry.slice(0, eq)}=***`
    })
  return `${head}?${entries.join('&')}`
}

/** Scheme, then everything up to the first `@` of the authority (userinfo cannot hold `/`, `?` or `#`). */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi
/**
 * A `key=value` anywhere in text that a query entry (`?token=abc`, `&key=value`: relative and
 * scheme-less URLs carry them too) or whose key names a secret (`token=…`, `api_key=…`,
 * `X-Signature=…`, `password="…"`: an app's own error message quotes credentials without any URL
 * around them). The value runs to whitespace, `&`, `#`, `;`, `,` or a quote, or is the whole quoted string.
 */
const PAIR_IN_TEXT = /([?&][^\s=&#?"'<>`]+=|\b[\w.-]*(?:token|key|secret|pass|pwd|auth|sig|cred|session|cookie)[\w.-]*=)("[^"]*"|'[^']*'|[^\s&#;,"'<>`]+)/gi
/** What names a secret, in a key of text or of JSON. */
const SECRET_NAME = /token|key|secret|pass|pwd|auth|sig|cred|session|cookie/i
/** A JSON `"key": value` whose key names a secret (an echoed request in an error body); the value is a string, or runs to `,` `}` `]`. */
const JSON_PAIR_IN_TEXT = /("[^"\\]*(?:token|key|secret|pass|pwd|auth|sig|cred|session|cookie)[^"\\]*"\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)/gi
/** An HTTP credential in text: `Bearer …`, `Basic …` (an `Authorization` header quoted in a message). */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=:-]+/gi

/**
 * Free text (a runtime's error message, a cause) with every URL in it redacted like {@link redactUrl},
 * every `?key=value` / `&key=value` entry too (a relative `/ws?token=…` or a scheme-less
 * `host/ws?token=…` is no exception), and every `key=value` whose key names a secret (token, key,
 * secret, password, auth, signature, credential, session…), wherever it stands.
 *
 * @example
 * redactText('connect ECONNREFUSED for wss://solver.example/ws?token=abc') // '… wss://solver.example/ws?token=***'
 * redactText('refused: token=abc&expires=0') // 'refused: token=***&expires=***'
 */
export function redactText(text: string): string {
  return text
    .replace(URL_IN_TEXT, (url) => redactUrl(url))
    .replace(JSON_PAIR_IN_TEXT, (_, name: string) => `${name}"***"`)
    .replace(SCHEME_CREDENTIAL, (_, scheme: string) => `${scheme} ***`)
    .replace(PAIR_IN_TEXT, (_, name: string) => `${name}***`)
}

/**
 * A response body safe to keep on an error: text through {@link redactText}; JSON with the value of
 * every key that names a secret (token, key, secret, password, auth, signature, credential, session,
 * cookie…) replaced by `***` at any depth, and every other string redacted as text. Services echo the
 * request they refused (headers, cookies) in their error bodies, and apps print errors whole.
 *
 * @example
 * redactBody({ error: 'unauthorized', request: { 'x-api-key': 'abc' } }) // { error: 'unauthorized', request: { 'x-api-key': '***' } }
 */
export function redactBody(body: unknown, depth = 0): unknown {
  if (typeof body === 'string') return redactText(body)
  if (typeof body !== 'object' || body === null) return body
  // Deeper than any answer worth reading: nothing of it is kept.
  if (depth > 32) return '***'
  if (Array.isArray(body)) return body.map((item) => redactBody(item, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) {
    if (key === '__proto__') continue
    copy[key] = SECRET_NAME.test(key) ? '***' : redactBody(value, depth + 1)
  }
  return copy
}

/**
 * An error safe to attach as a `cause`: the same error when its message names no secret, else a
 * plain copy whose message (and stack) has every URL redacted. Runtimes print causes with the error
 * (Node's `console.error`), and fetch, ky and ws put the URL they were given in their messages.
 *
 * @example
 * new ServiceError('NETWORK', message, { cause: redactCause(error) })
 */
export function redactCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return cause
  const message = redactText(cause.message)
  // Runtimes also hang the input on the error (Node's ERR_INVALID_URL has `input`): printed with it.
  const leaks = Object.entries(cause).some(([, value]) => typeof value === 'string' && redactText(value) !== value)
  if (message === cause.message && !leaks) return cause
  const copy = new Error(message) as Error & { code?: unknown }
  copy.name = cause.name
  copy.stack = cause.stack === undefined ? undefined : redactText(cause.stack)
  const code = (cause as { code?: unknown }).code
  if (typeof code === 'string') copy.code = code
  return copy
}
