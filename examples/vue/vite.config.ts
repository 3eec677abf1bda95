import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'vite'

export default defineConfig({
  root: import.meta.dirname,
  plugins: [vue()],
  // Workspace packages resolve to their source: no library build needed to run the example.
  resolve: { conditions: ['@solver-notifications/source', 'module', 'browser', 'development|production'] },
})
