import { expect, it } from 'vitest'
import { ACCOUNT_A, ACCOUNT_B, enigmaData, rasaPreChain } from '../../test/fixtures.js'
import { formatNotification } from './formatNotification.js'
import { normalizeNotification } from './normalizeNotification.js'

it('formats one readable line', () => {
  const n = normalizeNotification(enigmaData, { protocol: 'enigma', chainId: 42161, solverId: 'alpha', account: ACCOUNT_A })
  expect(formatNotification(n)).toBe('04:40:04 42161/alpha 0xAbC0…0001 quote 9565 success fill SendQuote')
  const failed = normalizeNotification({ ...rasaPreChain, action_status: 'failed', failure_type: 'MARGIN', error_code: 12 }, { protocol: 'rasa', chainId: 1, solverId: 'beta', account: ACCOUNT_B, source: 'backfill' })
  expect(formatNotification(failed)).toBe('04:40:10 1/beta 0x0000…00bB temp -42 failed open InstantRFQ (MARGIN #12) [backfill]')
})
