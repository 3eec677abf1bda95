import { defineConfig } from 'tsup'

const shared = {
  entry: { index: 'src/index.ts', query: 'src/query/index.ts' },
  sourcemap: true,
  target: 'es2022',
} as const

export default defineConfig([
  // ESM: every runtime dependency stays external, so apps dedupe them.
  { ...shared, format: ['esm'], dts: true, clean: true, external: ['rxjs', 'ws', 'isomorphic-ws', 'ky', 'zod'] },
  // CommonJS: ky ships only as ESM, which require() cannot load on Node 20 (nor Jest), so the CJS
  // build carries its own copy of ky; the rest stays external.
  { ...shared, format: ['cjs'], dts: true, external: ['rxjs', 'ws', 'isomorphic-ws', 'zod'], noExternal: ['ky'] },
])
