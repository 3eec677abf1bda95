import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

// The app's tsconfig extends files that `svelte-kit sync` generates; a fresh clone has none yet, and vitest
// reads that tsconfig to load the tests. The suite prepares them itself rather than rely on a step run before it.
const here = fileURLToPath(new URL('.', import.meta.url))
if (!existsSync(new URL('./.svelte-kit/tsconfig.json', import.meta.url))) execFileSync(`${here}node_modules/.bin/svelte-kit`, ['sync'], { cwd: here, stdio: 'inherit' })

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // The build is the hook's (vite build of the whole app), the checks the test's.
  test: { name: 'example-sveltekit', environment: 'node', include: ['test/**/*.test.ts'], testTimeout: 90_000, hookTimeout: 300_000 },
})
