import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // The build is the hook's (nuxt build), the checks the test's.
  test: { name: 'example-nuxt', environment: 'node', include: ['test/**/*.test.ts'], testTimeout: 90_000, hookTimeout: 300_000 },
})
