import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: 'docs-site', environment: 'node', include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
})
