import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'vue',
    environment: 'happy-dom',
    // The simulator runs on another loopback port: a different origin for the page.
    environmentOptions: { happyDOM: { settings: { fetch: { disableSameOriginPolicy: true } } } },
    include: ['src/**/*.test.ts'],
  },
})
