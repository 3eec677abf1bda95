import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts', react: 'src/react.ts', vue: 'src/vue.ts', svelte: 'src/svelte.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  external: ['react', 'vue', '@solver-notifications/core', 'rxjs'],
})
