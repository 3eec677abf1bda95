import type { ProtocolConfigModule } from '../ProtocolModule.js'

/** rasa's config block: `{ protocol: 'rasa', url }`. */
export const rasaConfig: ProtocolConfigModule = {
  protocol: 'rasa',
  configSchema: (z) => z.object({ protocol: z.literal('rasa'), url: z.nonEmpty('a ws:// or wss:// URL') }),
  configShape: '{ protocol: "rasa", url }',
  urlFields: [{ key: 'url', schemes: ['ws:', 'wss:'] }],
}
