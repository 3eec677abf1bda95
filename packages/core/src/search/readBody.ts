/**
 * Reads a response body as text, counting decoded bytes as they arrive (after the runtime undid any
 * `content-encoding`), so a small compressed body that inflates to gigabytes is stopped at `maxBytes`
 * instead of filling memory. Past the limit it cancels the body and throws `tooLarge()`, or, without
 * it, returns what was read (error bodies: only their start is kept). A declared `content-length`
 * over the limit is refused before reading.
 */
export async function readBody(response: Response, maxBytes: number, tooLarge: (() => Error) | undefined): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity'
  if (tooLarge && !encoded && declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined)
    throw tooLarge()
  }
  // The common case, a declared length within the limit and no encoding: the runtime reads it natively
  // (a body cannot run past its content-length).
  if (!encoded && declared >= 0 && declared <= maxBytes) return response.text()
  const body = response.body
  // Runtimes without streamed bodies (some React Native fetch polyfills) read it whole, then check.
  if (!body || typeof body.getReader !== 'function') {
    const text = await response.text()
    if (text.length > maxBytes && tooLarge) throw tooLarge()
    return text.length > maxBytes ? text.slice(0, maxBytes) : text
  }
  const reader = body.getReader()
  // Created per read, never at module load: some runtimes (Jest's jsdom) lack TextDecoder globally.
  const decoder = new TextDecoder()
  let bytes = 0
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > maxBytes) {
      void reader.cancel().catch(() => undefined)
      if (tooLarge) throw tooLarge()
      text += decoder.decode(value.subarray(0, value.byteLength - (bytes - maxBytes)), { stream: true })
      break
    }
    text += decoder.decode(value, { stream: true })
  }
  return text + decoder.decode()
}
