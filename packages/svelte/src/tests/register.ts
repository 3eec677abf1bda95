import type { Live } from '@solver-notifications/test-support'

// Registers the test config, so svelte-check also checks the hooks' typing through `Register`:
// literal solver ids, and search results typed by `solverId` without generics (see Search.svelte).
declare module '@solver-notifications/core' {
  interface Register {
    config: Live['config']
  }
}
