import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'devtools',
    environment: 'happy-dom',
    environmentOptions: { happyDOM: { settings: { fetch: { disableSameOriginPolicy: true } } } },
    include: ['src/**/*.test.ts'],
  },
})
