import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts', query: 'src/query/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
  // Peers and runtime deps stay external so apps dedupe them.
  external: ['rxjs', 'ws', 'isomorphic-ws', 'ky', 'zod'],
})
