import type { Address } from '../utils/address.js'

/**
 * Parameters every search takes, whatever the protocol.
 *
 * @example
 * const params: SearchParamsBase = { account: '0x1111111111111111111111111111111111111111', size: 50 }
 */
export interface SearchParamsBase<Id extends string = string> {
  solverId?: Id | undefined
  chainId?: number | undefined
  account?: Address | undefined
  quoteId?: number | undefined
  start?: number | undefined
  size?: number | undefined
}
