import { fileURLToPath } from 'node:url'
import { defineProject } from 'vitest/config'

// Workspace packages resolve to their TypeScript source, so tests never need a build.
const conditions = ['@solver-notifications/source']

export default defineProject({
  // The shared test utilities depend on core: its own tests reach them by path (see tsconfig.json).
  resolve: { conditions, alias: { '@solver-notifications/test-support': fileURLToPath(new URL('../test-support/live.ts', import.meta.url)) } },
  ssr: { resolve: { conditions } },
  test: {
    name: 'core',
    environment: 'node',
    include: ['src/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
