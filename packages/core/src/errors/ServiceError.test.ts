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
