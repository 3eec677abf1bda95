// The one list of test projects (vitest.config.ts passes it to test.projects).
export default ['packages/*/vitest.config.ts', 'packages/svelte/vitest.ssr.config.ts', 'examples/*/vitest.config.ts']
