import { svelte } from '@sveltejs/vite-plugin-svelte'
import { defineConfig } from 'vite'

export default defineConfig({
  root: import.meta.dirname,
  plugins: [svelte()],
  // Workspace packages resolve to their source: no library build needed to run the example.
  resolve: { conditions: ['@solver-notifications/source', 'svelte', 'module', 'browser', 'development|production'] },
})
