import { sveltekit } from '@sveltejs/kit/vite'
import { defineConfig } from 'vite'

const conditions = ['@solver-notifications/source']

export default defineConfig({
  plugins: [sveltekit()],
  // Workspace packages resolve to their source (no library build needed), on the server too.
  resolve: { conditions: [...conditions, 'svelte', 'module', 'browser', 'development|production'] },
  ssr: { resolve: { conditions: [...conditions, 'svelte', 'module', 'node', 'development|production'], externalConditions: conditions },
    // The library is bundled from source; the WebSocket package stays a runtime dependency of the server.
    noExternal: [/^@solver-notifications\//, 'example-shared'],
    external: ['ws', 'isomorphic-ws'],
  },
})
