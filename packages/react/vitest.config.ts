import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  esbuild: { jsx: 'automatic' },
  test: {
    name: 'react',
    environment: 'happy-dom',
    // The simulator runs on another loopback port: a different origin for the page.
    environmentOptions: { happyDOM: { settings: { fetch: { disableSameOriginPolicy: true } } } },
    include: ['src/**/*.test.{ts,tsx}'],
  },
})
