import * as z from 'zod/mini'

import { protocolConfigs, registryVersion } from '../protocol/protocols.js'

let schema: ReturnType<typeof build> | undefined
let builtAt = -1

/**
 * The config schema, built on first use: zod/mini keeps the bundle inside its budget (the size table in the README),
 * and building it lazily (nothing runs at module load) lets an app that never creates a config, or a
 * bundle of the frame helpers alone, drop zod entirely.
 */
export function configSchema() {
  if (!schema || builtAt !== registryVersion()) {
    schema = build()
    builtAt = registryVersion()
  }
  return schema
}

function build() {
  const nonEmpty = (what: string) => z.string({ error: `expected ${what} (a string)` }).check(z.minLength(1, `expected ${what}, got an empty string`))
  // Each protocol owns the schema of its notifications block; the union is the registry's.
  const modules = Object.values(protocolConfigs)
  const kit = { object: z.object, literal: z.literal, optional: z.optional, nonEmpty }
  const blocks = modules.map((m) => m.configSchema(kit)) as unknown as [z.ZodMiniObject, ...z.ZodMiniObject[]]
  const solver = z.object({
    url: z.optional(nonEmpty("an http(s) URL of the solver's API")),
    headers: z.optional(z.record(z.string(), z.string({ error: 'expected a string header value' }), { error: 'expected an object of header names to string values' })),
    notifications: z.discriminatedUnion('protocol', blocks as never, {
      error: `expected ${modules.map((m) => m.configShape).join(' or ')}`,
    }),
  })
  const chain = z.object({
    defaultSolver: nonEmpty('the id of one of this chain’s solvers'),
    solvers: z.record(z.string(), solver, { error: 'expected an object of solvers keyed by solver id' }),
  })
  return z.object({
    defaultChainId: z.number({ error: 'expected a chain id (a positive integer)' }).check(z.int(), z.positive()),
    chains: z.record(z.string(), chain, { error: 'expected an object of chains keyed by chain id' }),
    allowInsecureTransport: z.optional(z.boolean({ error: 'expected true or false' })),
  })
}
