import { fileURLToPath } from 'node:url'
import { runExampleInBrowser } from 'example-shared/browserScenario'
import { expect, it } from 'vitest'

it('the Vue example works in Chromium against the simulators', async () => {
  const checks: Array<[string, boolean]> = []
  await runExampleInBrowser(fileURLToPath(new URL('..', import.meta.url)), (message, ok) => checks.push([message, ok]))
  expect(checks).toEqual(checks.map(([message]) => [message, true]))
  expect(checks).toHaveLength(12)
})
