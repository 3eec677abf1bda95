// The one list of test projects; vitest 3 reads this file directly.
export default ['packages/*/vitest.config.ts', 'packages/svelte/vitest.ssr.config.ts', 'examples/*/vitest.config.ts']
