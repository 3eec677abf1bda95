import { type Options, defineConfig } from 'tsup'

type Plugin = NonNullable<Options['esbuildPlugins']>[number]

/**
 * ky computes the size of a form boundary with `new TextEncoder()` when its module loads; Jest's jsdom
 * environment has no TextEncoder global, so requiring the CommonJS build (which carries ky) failed
 * there. The size of that ASCII boundary is 40 bytes: the bundled copy gets the number.
 */
const kyWithoutTextEncoderAtLoad: Plugin = {
  name: 'ky-without-text-encoder-at-load',
  setup(build) {
    build.onLoad({ filter: /[\\/]ky[\\/]distribution[\\/]core[\\/]constants\.js$/ }, async (args) => {
      const { readFile } = await import('node:fs/promises')
      const source = await readFile(args.path, 'utf8')
      const patched = source.replace("new TextEncoder().encode('------WebKitFormBoundaryaxpyiPgbbPti10Rw').length", '40')
      if (patched === source) throw new Error('ky changed: re-check that nothing in it reads TextEncoder at module load')
      return { contents: patched, loader: 'js' }
    })
  },
}

const shared = {
  entry: { index: 'src/index.ts', query: 'src/query/index.ts', internal: 'src/internal.ts' },
  sourcemap: true,
  target: 'es2022',
} as const

export default defineConfig([
  // ESM: one file per source module (not bundled), so an app's bundler drops every module it does not
  // use as a whole (the package has no side effects) instead of proving each statement of one big
  // file unused; every runtime dependency stays external, so apps dedupe them. Types come from the
  // two public entries.
  {
    ...shared,
    entry: ['src/**/*.ts', '!src/**/*.test.ts', '!src/**/*.test-d.ts', '!src/**/*.bench.ts'],
    bundle: false,
    format: ['esm'],
    clean: true,
  },
  { ...shared, format: ['esm'], dts: { only: true } },
  // CommonJS: ky ships only as ESM, which require() cannot load on Node 20 (nor Jest), so the CJS
  // build carries its own copy of ky; the rest stays external.
  // Split like the ESM build: `query.cjs` requires the chunks `index.cjs` does, so a CommonJS app gets
  // one copy of core (one ServiceError class, one protocol registry), not one per entry.
  { ...shared, format: ['cjs'], dts: true, splitting: true, external: ['rxjs', 'ws', 'isomorphic-ws', 'zod'], noExternal: ['ky'], esbuildPlugins: [kyWithoutTextEncoderAtLoad] },
  // React Native (the `react-native` export condition and field): Metro does not tree-shake, and every
  // public entry of zod re-exports all of its locales and its JSON-schema code (~45 KiB gzip of an app).
  // This build carries the zod and ky code core uses, tree-shaken by esbuild; split like the others, so
  // `.`, `./query` and `./internal` share their chunks (one copy of core). rxjs stays the app's own.
  { ...shared, outDir: 'dist/react-native', format: ['esm'], splitting: true, external: ['rxjs', 'ws', 'isomorphic-ws'], noExternal: ['zod', 'ky'], esbuildPlugins: [kyWithoutTextEncoderAtLoad] },
])
