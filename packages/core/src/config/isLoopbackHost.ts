/**
 * Whether a URL host is loopback: `localhost`, `127.0.0.0/8` or `[::1]`, the only hosts plain
 * `ws://`/`http://` may reach without `allowInsecureTransport`. Names under `.localhost` are not
 * accepted: resolvers are not obliged to keep them on this machine, so they may go through DNS.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  if (host === 'localhost' || host === '[::1]' || host === '::1') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
