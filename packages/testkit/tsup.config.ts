import { defineConfig } from 'tsup'

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    target: 'node20',
    external: ['ws'],
  },
  // The CLI uses top-level await: ESM only.
  { entry: { cli: 'src/cli.ts' }, format: ['esm'], target: 'node20', external: ['ws'] },
])
