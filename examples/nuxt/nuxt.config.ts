// Nuxt renders every page on the server; the library must send nothing from there unless asked.
export default defineNuxtConfig({
  compatibilityDate: '2025-07-15',
  devtools: { enabled: false },
  telemetry: false,
  // The simulator URLs come from the server's environment (NUXT_PUBLIC_SIM_QUERY), set by the browser test.
  runtimeConfig: { public: { simQuery: '' } },
  vite: {
    // Workspace packages resolve to their source: no library build needed.
    resolve: { conditions: ['@solver-notifications/source', 'module', 'browser', 'development|production'] },
    ssr: { resolve: { conditions: ['@solver-notifications/source', 'module', 'node', 'development|production'] } },
  },
  build: { transpile: [/@solver-notifications\//, 'example-shared'] },
  // Type-checked against the workspace sources too (no library build needed first).
  typescript: { tsConfig: { compilerOptions: { customConditions: ['@solver-notifications/source'] } } },
  nitro: { externals: { external: ['ws', 'isomorphic-ws'] } },
})
