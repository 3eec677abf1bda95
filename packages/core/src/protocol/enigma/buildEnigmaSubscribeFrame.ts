/**
 * Builds the enigma subscribe frame for one account on one channel (docs/protocols.md, "enigma"); `*` means every quote.
 *
 * @example
 * ws.send(buildEnigmaSubscribeFrame({ account: '0xabc…', channel: 'Arbitrum_Solver_Production' }))
 */
export function buildEnigmaSubscribeFrame(params: { account: string; channel: string }): string {
  return JSON.stringify({
    channel_patterns: [
      { app_name: params.channel, address: params.account, primary_identifier: '*', secondary_identifier: '*' },
    ],
  })
}
