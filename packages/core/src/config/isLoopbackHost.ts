/**
 * Whether a URL host is loopback (`localhost`, `127.0.0.0/8`, `[::1]`): the only hosts plain
 * `ws://`/`http://` may reach without `allowInsecureTransport`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (host === '[::1]' || host === '::1') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}
