import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // The build is the hook's (vite build of the whole app), the checks the test's.
  test: { name: 'example-sveltekit', environment: 'node', include: ['test/**/*.test.ts'], testTimeout: 90_000, hookTimeout: 300_000 },
})
