/**
 * Joins a configured base URL and a path without ever producing `//`; a query or fragment on the base
 * (`https://host/api?key=…`) stays at the end, after the joined path.
 */
export function joinUrl(base: string, path: string): string {
  const cut = base.search(/[?#]/)
  const head = cut === -1 ? base : base.slice(0, cut)
  const tail = cut === -1 ? '' : base.slice(cut)
  return `${head.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}${tail}`
}
