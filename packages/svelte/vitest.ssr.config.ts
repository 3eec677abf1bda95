import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineProject } from 'vitest/config'

const conditions = ['@solver-notifications/source']

// Server rendering: node environment, components compiled for the server.
export default defineProject({
  root: import.meta.dirname,
  plugins: [svelte()],
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: 'svelte-ssr', environment: 'node', include: ['src/**/*.ssr.test.ts'] },
})
