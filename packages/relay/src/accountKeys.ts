import { isAddress } from '@solver-notifications/core'
import { RelayError } from './RelayError.js'

/**
 * One watched account, as the key of the `solver_relay_accounts` bucket says it.
 *
 * @example
 * const watched: WatchedAccount = parseAccountKey('42161.beta.0xabc0000000000000000000000000000000000001')
 */
export interface WatchedAccount {
  key: string
  chainId: number
  solverId: string
  account: `0x${string}`
}

// KV keys allow [-/_=.a-zA-Z0-9]; the solver id is one token of them.
const SOLVER_ID = /^[-_=a-zA-Z0-9]+$/

/**
 * Parses `<chainId>.<solverId>.<lowercase account>`; anything else is an `INVALID_ACCOUNT_KEY` error saying what is wrong.
 *
 * @example
 * parseAccountKey('1.alpha.0x1111111111111111111111111111111111111111').solverId // 'alpha'
 */
export function parseAccountKey(key: string): WatchedAccount {
  const fail = (why: string) => {
    throw new RelayError('INVALID_ACCOUNT_KEY', `Account key "${String(key)}" ${why}; write it as <chainId>.<solverId>.<lowercase account>, e.g. 42161.beta.0xabc0000000000000000000000000000000000001`)
  }
  if (typeof key !== 'string') fail('is not a string')
  const parts = key.split('.')
  if (parts.length !== 3) fail(`has ${parts.length} dot-separated parts, not 3`)
  const [chain, solverId, account] = parts as [string, string, string]
  const chainId = Number(chain)
  if (!/^[1-9][0-9]*$/.test(chain) || !Number.isSafeInteger(chainId)) fail(`has chain id "${chain}", not a positive integer`)
  if (!SOLVER_ID.test(solverId)) fail(`has solver id "${solverId}" with characters a NATS key cannot hold (use letters, digits, - _ =)`)
  if (!isAddress(account)) fail(`has "${account}", not a 0x address of 40 hex digits`)
  if (account !== account.toLowerCase()) fail('has an account in mixed case (keys are lowercase, so one account is one key)')
  return { key, chainId, solverId, account: account as `0x${string}` }
}

/**
 * The key of an account: `<chainId>.<solverId>.<lowercase account>`.
 *
 * @example
 * accountKey(42161, 'beta', '0xAbC0000000000000000000000000000000000001') // '42161.beta.0xabc0…0001'
 */
export function accountKey(chainId: number, solverId: string, account: string): string {
  return parseAccountKey(`${chainId}.${solverId}.${String(account).toLowerCase()}`).key
}
