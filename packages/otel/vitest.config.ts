import { fileURLToPath } from 'node:url'
import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  // The private test utilities are reached by path: a package dependency on them could not be packed.
  resolve: { conditions, alias: { '@solver-notifications/test-support': fileURLToPath(new URL('../test-support/live.ts', import.meta.url)) } },
  ssr: { resolve: { conditions } },
  test: { name: 'otel', environment: 'node', include: ['src/**/*.test.ts'] },
})
