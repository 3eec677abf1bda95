import { describe, expect, it } from 'vitest'
import { redactBody, redactCause, redactText, redactUrl } from './redactUrl.js'

describe('redactUrl', () => {
  it.each([
    ['wss://user:S3CRET@solver.example/ws', 'wss://***@solver.example/ws'],
    ['wss://S3CRET@solver.example/ws', 'wss://***@solver.example/ws'],
    ['wss://solver.example/ws?token=S3CRET', 'wss://solver.example/ws?token=***'],
    ['https://u:p@h.example:8443/p?a=1&b=S3CRET&c#frag=S3CRET', 'https://***@h.example:8443/p?a=***&b=***&c=***'.replace('&c=***', '&***')],
    ['https://h.example/p?S3CRET', 'https://h.example/p?***'],
    ['https://h.example/p?', 'https://h.example/p?'],
    ['http://127.0.0.1:9/position-state/0/100', 'http://127.0.0.1:9/position-state/0/100'],
    ['not a url ?x=S3CRET', 'not a url ?x=***'],
  ])('%s → %s', (input, output) => {
    expect(redactUrl(input)).toBe(output)
    expect(redactUrl(input)).not.toContain('S3CRET')
  })

  it('redactText finds every URL in free text', () => {
    expect(redactText('connect to wss://a:S3CRET@h/ws?token=S3CRET failed; then https://x/y?k=S3CRET.')).toBe(
      'connect to wss://***@h/ws?token=*** failed; then https://x/y?k=***',
    )
  })

  it.each([
    ['Invalid URL: /ws?token=SeCrEt', 'Invalid URL: /ws?token=***'],
    ['could not reach solver.example/ws?token=SeCrEt&app=SeCrEt2', 'could not reach solver.example/ws?token=***&app=***'],
    ['redirected to //cdn.example/x?sig=SeCrEt then gave up', 'redirected to //cdn.example/x?sig=*** then gave up'],
    ['maxRows=10 and the window', 'maxRows=10 and the window'],
  ])('redactText redacts query values of relative and scheme-less URLs: %s', (input, output) => {
    expect(redactText(input)).toBe(output)
  })

  it.each([
    ['auth.socketUrl refused: token=SeCrEt-kv-7777&expires=0', 'auth.socketUrl refused: token=***&expires=***'],
    ['bad api_key=SeCrEt for tenant 4', 'bad api_key=*** for tenant 4'],
    ['password="Se Cr Et" was rejected', 'password=*** was rejected'],
    ['X-Signature=SeCrEt, retry', 'X-Signature=***, retry'],
    ['Authorization=SeCrEt;next=1', 'Authorization=***;next=1'],
    ['credentials=SeCrEt\nsession_id=SeCrEt', 'credentials=***\nsession_id=***'],
    ['token=SeCrEt', 'token=***'],
    ['count=3 attempts=2 maxRows=10', 'count=3 attempts=2 maxRows=10'],
  ])('redactText redacts a key=value whose key names a secret wherever it stands: %s', (input, output) => {
    expect(redactText(input)).toBe(output)
    expect(redactText(input)).not.toContain('SeCrEt')
  })

  it('redactCause copies an error whose own fields (Node’s `input`) name a secret, keeping its code', () => {
    let error: unknown
    try {
      new URL('/ws?token=SeCrEt')
    } catch (e) {
      error = e
    }
    const safe = redactCause(error) as Error & { code?: string }
    expect(safe).not.toBe(error)
    expect(safe.code).toBe('ERR_INVALID_URL')
    expect(JSON.stringify({ ...safe, message: safe.message, stack: safe.stack })).not.toContain('SeCrEt')
  })
})

describe('redactText and redactBody: JSON pairs, HTTP credentials, echoed bodies', () => {
  it.each([
    ['{"token": "SeCrEt", "user": "ann"}', '{"token": "***", "user": "ann"}'],
    ['{"x-api-key":"SeCrEt","n":1}', '{"x-api-key":"***","n":1}'],
    ['"password" : 12345678, "ok": true', '"password" : "***", "ok": true'],
    ['truncated {"session":"SeCrEt', 'truncated {"session":"***"'],
    ['Authorization: Bearer eyJhbGciOi.SeCrEt.sig, retry', 'Authorization: Bearer ***, retry'],
    ['Basic dXNlcjpTZUNyRXQ= was refused', 'Basic *** was refused'],
    ['token refresh failed: Bearer SeCrEt is expired', 'token refresh failed: Bearer *** is expired'],
  ])('redactText(%s)', (input, output) => {
    expect(redactText(input)).toBe(output)
  })

  it('redactBody replaces the value of every secret-named key at any depth and redacts other strings as text', () => {
    const body = { error: 'no', token: 'SeCrEt', nested: [{ headers: { Cookie: 'session=SeCrEt', accept: 'json' } }, 'see https://h/x?sig=SeCrEt'], count: 3 }
    expect(redactBody(body)).toEqual({ error: 'no', token: '***', nested: [{ headers: { Cookie: '***', accept: 'json' } }, 'see https://h/x?sig=***'], count: 3 })
    expect(JSON.stringify(redactBody(body))).not.toContain('SeCrEt')
    expect(redactBody('plain "api_key": "SeCrEt"')).toBe('plain "api_key": "***"')
    expect([redactBody(null), redactBody(7), redactBody(undefined)]).toEqual([null, 7, undefined])
  })
})
