/**
 * Builds the rasa hub subscribe frame: the full watched list, deduplicated case-insensitively in the
 * casing and order first seen (docs/protocols.md, "rasa").
 *
 * @example
 * ws.send(buildRasaSubscribeFrame(['0xA…', '0xa…', '0xB…'])) // {"address":["0xA…","0xB…"]}
 */
export function buildRasaSubscribeFrame(accounts: Iterable<string>): string {
  const seen = new Set<string>()
  const address: string[] = []
  for (const account of accounts) {
    const key = account.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    address.push(account)
  }
  return JSON.stringify({ address })
}
