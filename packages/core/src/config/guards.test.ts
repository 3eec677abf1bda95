import { expect, expectTypeOf, it } from 'vitest'
import { ServiceError } from '../errors/ServiceError.js'
import { ServiceRequestError, isServiceRequestError } from '../errors/ServiceRequestError.js'
import { type Address, toAddress } from '../utils/address.js'
import { createConfig } from './createConfig.js'
import { isSolverId } from './isSolverId.js'

const config = createConfig({
  defaultChainId: 1,
  chains: {
    1: { defaultSolver: 'alpha', solvers: { alpha: { notifications: { protocol: 'rasa', url: 'wss://a.example/ws' } } } },
    2: { defaultSolver: 'beta', solvers: { beta: { notifications: { protocol: 'rasa', url: 'wss://b.example/ws' } } } },
  },
})

it('isSolverId narrows a runtime string to the configured ids, per chain when asked', () => {
  const fromUrl: string = new URLSearchParams('solver=beta').get('solver')!
  expect(isSolverId(config, fromUrl)).toBe(true)
  expect(isSolverId(config, fromUrl, 1)).toBe(false)
  expect(isSolverId(config, fromUrl, 2)).toBe(true)
  expect(isSolverId(config, 'toString')).toBe(false)
  expect(isSolverId(config, 5)).toBe(false)
  if (isSolverId(config, fromUrl)) expectTypeOf(fromUrl).toEqualTypeOf<'alpha' | 'beta'>()
})

it('toAddress returns a checked Address or throws INVALID_PARAMETERS saying why', () => {
  const held: string = '0xAbC0000000000000000000000000000000000001'
  const account = toAddress(held)
  expectTypeOf(account).toEqualTypeOf<Address>()
  expect(account).toBe(held)
  expect(() => toAddress('0x123')).toThrowError(expect.objectContaining({ code: 'INVALID_PARAMETERS', message: expect.stringContaining('40 hex digits, got "0x123"') }))
})

it('isServiceRequestError narrows to status, url and retryAfterMs; a plain ServiceError is not one; a copy from another build is', () => {
  const error: unknown = new ServiceRequestError('HTTP_STATUS', 'x', { method: 'POST', url: 'https://s.example', status: 429, retryAfterMs: 2_000 })
  expect(isServiceRequestError(error)).toBe(true)
  if (isServiceRequestError(error)) expect([error.status, error.url, error.retryAfterMs]).toEqual([429, 'https://s.example', 2_000])
  expect(isServiceRequestError(new ServiceError('SOCKET', 'x'))).toBe(false)
  expect(isServiceRequestError({ status: 500 })).toBe(false)
  // what another copy of the package (the CommonJS build next to ESM) makes carries the same global brand
  const foreign = Object.assign(new Error('x'), { [Symbol.for('solver-notifications.ServiceRequestError')]: true, status: 503 })
  expect(isServiceRequestError(foreign)).toBe(true)
})
