import { expect, it } from 'vitest'
import { ACCOUNT_A, ACCOUNT_B, enigmaData, rasaAnchored } from '../../test/fixtures.js'
import { toNotification } from './toNotification.js'

it('normalizes a stored enigma document (data object or string) with source backfill', () => {
  const doc = { id: 'd1', app_name: 'X', address: ACCOUNT_A, primary_identifier: 9565, secondary_identifier: -12, data: enigmaData }
  const n = toNotification(doc, { protocol: 'enigma', chainId: 1, solverId: 'alpha' })
  expect([n.account, n.quoteId, n.source, n.phase]).toEqual([ACCOUNT_A, 9565, 'backfill', 'fill'])
  const fromString = toNotification({ ...doc, data: JSON.stringify({ action_status: 'failed' }) as never }, { protocol: 'enigma', chainId: 1, solverId: 'alpha' })
  expect([fromString.quoteId, fromString.type]).toEqual([9565, 'failed'])
})

it('normalizes a rasa position state, account from the context or the row', () => {
  const n = toNotification(rasaAnchored, { protocol: 'rasa', chainId: 1, solverId: 'beta', account: ACCOUNT_B })
  expect([n.account, n.quoteId, n.source]).toEqual([ACCOUNT_B, 777, 'backfill'])
  const own = toNotification(rasaAnchored, { protocol: 'rasa', chainId: 1, solverId: 'beta', source: 'live' })
  expect([own.account, own.source]).toEqual([rasaAnchored.counterparty_address, 'live'])
})
