import { describe, expect, it } from 'vitest'
import { redactText, redactUrl } from './redactUrl.js'

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
})
