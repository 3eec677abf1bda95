import { expect, it, vi } from 'vitest'

// The CommonJS build once failed every search with `import_ky.default.post is not a function`, and
// reported it as NETWORK, sending users to debug their network. A bug is rethrown as it is.
vi.mock('ky', () => ({ default: {}, HTTPError: class extends Error {}, TimeoutError: class extends Error {} }))

it('a programming error inside search is rethrown as is, never reported as NETWORK', async () => {
  const { postJson } = await import('./postJson.js')
  const error = await postJson('http://127.0.0.1:1/x', {}, {}).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TypeError)
  expect((error as Error).message).toMatch(/post is not a function/)
  expect((error as { code?: string }).code).toBeUndefined()
})
