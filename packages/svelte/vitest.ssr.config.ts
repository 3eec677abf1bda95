import { fileURLToPath } from 'node:url'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

// Server rendering: node environment, components compiled for the server.
export default defineProject({
  root: import.meta.dirname,
  plugins: [svelte()],
  // The private test utilities are reached by path: a package dependency on them could not be packed.
  resolve: { conditions, alias: { '@solver-notifications/test-support': fileURLToPath(new URL('../test-support/live.ts', import.meta.url)) } },
  ssr: { resolve: { conditions } },
  test: { name: 'svelte-ssr', environment: 'node', include: ['src/**/*.ssr.test.ts'] },
})
