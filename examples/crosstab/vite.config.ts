import { defineConfig } from 'vite'

export default defineConfig({
  root: import.meta.dirname,
  // Workspace packages resolve to their source: no library build needed.
  resolve: { conditions: ['@solver-notifications/source', 'module', 'browser', 'development|production'] },
})
