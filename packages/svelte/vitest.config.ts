import { fileURLToPath } from 'node:url'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { svelteTesting } from '@testing-library/svelte/vite'
import { createRequire } from 'node:module'
import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

export default defineProject({
  // Svelte rune modules are resolved relative to this package.
  root: import.meta.dirname,
  plugins: [svelte(), svelteTesting()],
  resolve: {
    conditions: [...conditions, 'browser'],
    // The simulator (Node only) imports ws: keep Node's build, not the browser stub the browser condition picks.
    alias: { '@solver-notifications/test-support': fileURLToPath(new URL('../test-support/live.ts', import.meta.url)), ws: createRequire(import.meta.url).resolve('ws') },
  },
  ssr: { resolve: { conditions } },
  test: {
    name: 'svelte',
    environment: 'happy-dom',
    environmentOptions: { happyDOM: { settings: { fetch: { disableSameOriginPolicy: true } } } },
    include: ['src/**/*.test.ts'],
    exclude: ['src/**/*.ssr.test.ts'],
  },
})
