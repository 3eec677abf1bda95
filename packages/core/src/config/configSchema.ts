import * as z from 'zod/mini'

let schema: ReturnType<typeof build> | undefined

/**
 * The config schema, built on first use: zod/mini keeps the bundle inside its budget (SPEC §10 B6),
 * and building it lazily (nothing runs at module load) lets an app that never creates a config, or a
 * bundle of the frame helpers alone, drop zod entirely.
 */
export function configSchema() {
  schema ??= build()
  return schema
}

function build() {
  const nonEmpty = (what: string) => z.string({ error: `expected ${what} (a string)` }).check(z.minLength(1, `expected ${what}, got an empty string`))
  const enigmaNotifications = z.object({
    protocol: z.literal('enigma'),
    url: nonEmpty('a ws:// or wss:// URL'),
    channel: nonEmpty('the channel (app_name) this solver publishes on, e.g. "Arbitrum_Solver_Production"'),
    searchUrl: z.optional(nonEmpty('an http(s) URL of the search service')),
  })
  const rasaNotifications = z.object({
    protocol: z.literal('rasa'),
    url: nonEmpty('a ws:// or wss:// URL'),
  })
  const solver = z.object({
    url: z.optional(nonEmpty("an http(s) URL of the solver's API")),
    notifications: z.discriminatedUnion('protocol', [enigmaNotifications, rasaNotifications], {
      error: 'expected { protocol: "enigma", url, channel } or { protocol: "rasa", url }',
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
