import { defineConfig } from 'tsup'

export default defineConfig([
  {
    // `memory` has nothing of Node in its graph: it loads in browsers, React Native and Workers.
    entry: { index: 'src/index.ts', memory: 'src/memory.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    target: 'node20',
    external: ['ws'],
  },
  // The CLI uses top-level await: ESM only.
  { entry: { cli: 'src/cli.ts' }, format: ['esm'], target: 'node20', external: ['ws'] },
])
