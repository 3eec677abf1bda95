import type { ProtocolConfigModule } from '../ProtocolModule.js'

/** enigma's config block: `{ protocol: 'enigma', url, channel, searchUrl? }`. */
export const enigmaConfig: ProtocolConfigModule = {
  protocol: 'enigma',
  configSchema: (z) =>
    z.object({
      protocol: z.literal('enigma'),
      url: z.nonEmpty('a ws:// or wss:// URL'),
      channel: z.nonEmpty('the channel (app_name) this solver publishes on, e.g. "Arbitrum_Solver_Production"'),
      searchUrl: z.optional(z.nonEmpty('an http(s) URL of the search service')),
    }),
  configShape: '{ protocol: "enigma", url, channel, searchUrl? }',
  urlFields: [
    { key: 'url', schemes: ['ws:', 'wss:'] },
    { key: 'searchUrl', schemes: ['http:', 'https:'] },
  ],
}
