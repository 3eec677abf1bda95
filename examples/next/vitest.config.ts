import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // `next build` takes its time on a 2-core machine: the build is the hook's, the checks the test's.
  test: { name: 'example-next', environment: 'node', include: ['test/**/*.test.ts'], testTimeout: 90_000, hookTimeout: 300_000 },
})
