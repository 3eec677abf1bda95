import { defineProject } from 'vitest/config'

// Workspace packages resolve to their TypeScript source, so tests never need a build.
const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'core',
    environment: 'node',
    include: ['src/**/*.test.ts', 'examples/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
