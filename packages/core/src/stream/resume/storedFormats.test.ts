import { expect, it } from 'vitest'
import { checkpointKey, webStorageCheckpoints } from './CheckpointStore.js'

// The browser's checkpoint is read back by the next release's page after a deploy: its key and value are
// that contract (docs/guide/resume.md). A change fails here and needs a migration path.

it('the browser checkpoint: key `solver-notifications:checkpoint:<chainId>:<solverId>:<lowercase account>`, value unix seconds as text', () => {
  const items = new Map<string, string>()
  const storage = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) }
  const store = webStorageCheckpoints(storage)
  const key = checkpointKey(42161, 'beta', '0xAbC0000000000000000000000000000000000001')
  expect(key).toBe('42161:beta:0xabc0000000000000000000000000000000000001')
  store.set(key, 1_763_700_000)
  expect([...items]).toEqual([['solver-notifications:checkpoint:42161:beta:0xabc0000000000000000000000000000000000001', '1763700000']])
  expect(store.get(key)).toBe(1_763_700_000)
})
