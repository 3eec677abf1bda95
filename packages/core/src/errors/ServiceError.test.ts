import { expect, it } from 'vitest'
import { ServiceError, isServiceError } from './ServiceError.js'
import { ServiceRequestError } from './ServiceRequestError.js'

it('carries code, message and cause', () => {
  const cause = new Error('low level')
  const error = new ServiceError('SOCKET', 'socket failed', { cause })
  expect([error.name, error.code, error.message, error.cause]).toEqual(['ServiceError', 'SOCKET', 'socket failed', cause])
  expect(isServiceError(error)).toBe(true)
  expect(isServiceError(new Error('x'))).toBe(false)
})

it('request errors carry request details and truncate bodies to 4 KiB', () => {
  const error = new ServiceRequestError('HTTP_STATUS', 'bad', { method: 'POST', url: 'http://x/y', status: 500, body: 'z'.repeat(10_000), retryAfterMs: 1000 })
  expect(error).toBeInstanceOf(ServiceError)
  expect([error.name, error.status, error.method, error.url, error.retryAfterMs]).toEqual(['ServiceRequestError', 500, 'POST', 'http://x/y', 1000])
  expect((error.body as string).length).toBe(4097)
  const json = new ServiceRequestError('INVALID_RESPONSE', 'bad', { method: 'POST', url: 'u', body: { a: 1 } })
  expect(json.body).toEqual({ a: 1 })
})

it('isServiceError recognises errors of another copy of the package (the ESM and the CJS build) by brand, not by instanceof', () => {
  // What another build's ServiceRequestError looks like from here: a different class, the same global brand.
  class OtherBuildError extends Error {
    override name = 'ServiceRequestError'
    code = 'HTTP_STATUS'
  }
  const other = Object.assign(new OtherBuildError('from the CJS build'), { [Symbol.for('solver-notifications.ServiceError')]: true })
  expect(isServiceError(other)).toBe(true)
  expect(isServiceError(new ServiceRequestError('TIMEOUT', 'x', { method: 'POST', url: 'u' }))).toBe(true)
  // look-alikes without the brand are not ours
  expect(isServiceError(Object.assign(new Error('x'), { name: 'ServiceError', code: 'NETWORK' }))).toBe(false)
})
