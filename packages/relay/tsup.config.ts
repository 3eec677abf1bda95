import { defineConfig } from 'tsup'

const external = ['@solver-notifications/core', '@nats-io/jetstream', '@nats-io/kv', '@nats-io/nats-core', '@nats-io/transport-node', 'rxjs', 'ws']

export default defineConfig([
  { entry: { index: 'src/index.ts' }, format: ['esm', 'cjs'], dts: true, clean: true, target: 'node20', external },
  { entry: { cli: 'src/cli.ts' }, format: ['esm'], target: 'node20', external },
])
