/**
 * The host of an absolute URL, read from its text (`wss://u:p@Host.example:443/ws` → `host.example`,
 * `ws://[::1]:80/` → `[::1]`), lowercased. Some platforms' `URL` leaves `hostname` empty for schemes
 * it does not know as special (React Native's for `ws:`), so loopback checks and messages read it here.
 *
 * @example
 * hostOf('ws://localhost:8080/ws') // 'localhost'
 */
export function hostOf(url: string): string {
  const start = url.indexOf('//')
  if (start === -1) return ''
  const rest = url.slice(start + 2)
  const authority = rest.slice(0, rest.search(/[/?#]|$/))
  const host = authority.slice(authority.lastIndexOf('@') + 1)
  const port = host.startsWith('[') ? host.indexOf(']') + 1 : host.lastIndexOf(':')
  return (port > 0 && port < host.length ? host.slice(0, port) : host).toLowerCase()
}
