import { fileURLToPath } from 'node:url'
import { runDevtoolsInBrowser } from 'example-shared/browserScenario'
import { expect, it } from 'vitest'

it('the React example’s devtools toggle: socket and stream shown, "drop socket" reconnects and backfills', async () => {
  const checks: Array<[string, boolean]> = []
  await runDevtoolsInBrowser(fileURLToPath(new URL('..', import.meta.url)), (message, ok) => checks.push([message, ok]))
  expect(checks).toEqual(checks.map(([message]) => [message, true]))
  expect(checks).toHaveLength(6)
})
