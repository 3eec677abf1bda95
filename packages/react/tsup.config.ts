import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2022',
  external: ['react', '@tanstack/react-query', '@solver-notifications/core', 'rxjs'],
  // The provider and hooks are client components: App Router files (Next.js) can import them from a
  // server component's layout only when the module says so.
  banner: { js: '"use client";' },
})
