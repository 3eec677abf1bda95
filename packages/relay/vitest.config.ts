import { defineProject } from 'vitest/config'

// Workspace packages resolve to their TypeScript source, so tests never need a build.
const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: 'relay', environment: 'node', include: ['src/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 30_000 },
})
