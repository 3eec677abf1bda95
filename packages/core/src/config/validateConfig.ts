import * as z from 'zod/mini'
import { isPlainObject } from '../protocol/frame.js'
import { protocolConfigs, registryVersion } from '../protocol/protocols.js'
import type { ConfigSchemaKit } from '../protocol/ProtocolModule.js'
import { describe } from '../utils/address.js'
import { redactUrl } from '../utils/redactUrl.js'
import { HEADER_NAME, HEADER_VALUE } from './auth.js'
import { isLoopbackHost } from './isLoopbackHost.js'

/**
 * One problem of a config: where (`chains.42161.solvers.beta.notifications.url`) and what was expected
 * and given.
 *
 * @example
 * catch (e) { if (isServiceError(e) && e.code === 'INVALID_CONFIG') for (const { path, message } of e.issues ?? []) form.markInvalid(path, message) }
 */
export interface ConfigIssue {
  readonly path: string
  readonly message: string
}

type Schema = z.ZodMiniType

let schemas: { chain: Schema; solver: Schema; blocks: Map<string, Schema>; builtAt: number } | undefined

/**
 * The object schemas, built on first use (nothing runs at module load, so a bundle that never creates
 * a config drops zod) and again when a protocol is registered. zod/mini checks the shape of each
 * object; the walk over chains and solvers is by hand, so one bad part never hides another.
 */
function objectSchemas() {
  if (schemas && schemas.builtAt === registryVersion()) return schemas
  const nonEmpty = (what: string) => z.string({ error: `expected ${what} (a string)` }).check(z.minLength(1, `expected ${what}`))
  const kit: ConfigSchemaKit = { object: z.object, literal: z.literal, optional: z.optional, nonEmpty }
  schemas = {
    chain: z.object({ defaultSolver: nonEmpty('the id of one of this chain’s solvers'), solvers: z.optional(z.unknown()) }, { error: 'expected an object { defaultSolver, solvers }' }),
    solver: z.object({ url: z.optional(nonEmpty("an http(s) URL of the solver's API")), headers: z.optional(z.unknown()), notifications: z.optional(z.unknown()) }, { error: 'expected an object { url?, headers?, notifications }' }),
    blocks: new Map(Object.values(protocolConfigs).map((m) => [m.protocol, m.configSchema(kit)])),
    builtAt: registryVersion(),
  }
  return schemas
}

/**
 * Every problem of a config input, in the order of the input (chains, then their solvers): shapes,
 * types, cross references (default chain and solvers), URL schemes and the clear-text transport
 * rule. An empty list means the config is valid.
 */
export function validateConfig(input: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const add = (path: string, message: string) => issues.push({ path, message })
  /** zod checks one object's shape; each issue gets its full path and what was given */
  const shape = (schema: Schema, value: unknown, at: string): void => {
    const result = schema.safeParse(value, { reportInput: true })
    if (!result.success) for (const issue of result.error.issues) add([at, ...issue.path.map(String)].join('.'), `${issue.message}, got ${describe(issue.input)}`)
  }
  if (!isPlainObject(input)) {
    add('(root)', `expected an object { defaultChainId, chains, allowInsecureTransport? }, got ${describe(input)}`)
    return issues
  }
  const { defaultChainId, chains } = input
  const allowInsecure = input.allowInsecureTransport === true
  if (typeof defaultChainId !== 'number' || !Number.isInteger(defaultChainId) || defaultChainId <= 0) add('defaultChainId', `expected a chain id (a positive integer), got ${describe(defaultChainId)}`)
  if (input.allowInsecureTransport !== undefined && typeof input.allowInsecureTransport !== 'boolean') add('allowInsecureTransport', `expected true or false, got ${describe(input.allowInsecureTransport)}`)
  if (!isPlainObject(chains)) {
    add('chains', `expected an object of chains keyed by chain id, got ${describe(chains)}`)
    return issues
  }
  const chainIds = Object.keys(chains)
  if (chainIds.length === 0) add('chains', 'configure at least one chain')
  else if (typeof defaultChainId === 'number' && !chainIds.includes(String(defaultChainId))) add('defaultChainId', `${defaultChainId} is not in chains (configured: ${chainIds.join(', ')})`)
  const { chain: chainSchema, solver: solverSchema, blocks } = objectSchemas()
  const protocolNames = [...blocks.keys()].map((name) => JSON.stringify(name)).join(' or ')
  for (const chainId of chainIds) {
    const base = `chains.${chainId}`
    if (!/^[1-9]\d*$/.test(chainId)) add(base, `expected a chain id (a positive integer) as the key, got ${describe(chainId)}; chains are keyed by number, e.g. 42161`)
    const chain = chains[chainId]
    shape(chainSchema, chain, base)
    if (!isPlainObject(chain)) continue
    const { solvers, defaultSolver } = chain
    if (!isPlainObject(solvers)) {
      add(`${base}.solvers`, `expected an object of solvers keyed by solver id, got ${describe(solvers)}`)
      continue
    }
    const solverIds = Object.keys(solvers)
    if (typeof defaultSolver === 'string' && defaultSolver !== '' && !solverIds.includes(defaultSolver)) {
      add(`${base}.defaultSolver`, `"${defaultSolver}" is not in solvers (configured: ${solverIds.join(', ') || 'none'})`)
    }
    for (const solverId of solverIds) {
      const at = `${base}.solvers.${solverId}`
      const solver = solvers[solverId]
      shape(solverSchema, solver, at)
      if (!isPlainObject(solver)) continue
      if (typeof solver.url === 'string' && solver.url !== '') checkUrl(solver.url, `${at}.url`, ['http:', 'https:'], allowInsecure, add)
      const headers = solver.headers
      if (headers !== undefined && !isPlainObject(headers)) add(`${at}.headers`, `expected an object of header names to string values, got ${describe(headers)}`)
      else if (headers) {
        for (const [name, value] of Object.entries(headers)) {
          if (!HEADER_NAME.test(name)) add(`${at}.headers`, `${describe(name)} is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`)
          else if (typeof value !== 'string') add(`${at}.headers.${name}`, `expected a string header value, got ${describe(value)}`)
          else if (!HEADER_VALUE.test(value)) add(`${at}.headers.${name}`, 'a header value cannot contain line breaks')
        }
      }
      const notifications = solver.notifications
      if (!isPlainObject(notifications)) {
        add(`${at}.notifications`, `expected ${Object.values(protocolConfigs).map((m) => m.configShape).join(' or ')}, got ${describe(notifications)}`)
        continue
      }
      const protocol = notifications.protocol
      const block = typeof protocol === 'string' ? blocks.get(protocol) : undefined
      if (!block) {
        add(`${at}.notifications.protocol`, `expected ${protocolNames}, got ${describe(protocol)}`)
        continue
      }
      shape(block, notifications, `${at}.notifications`)
      // Each protocol names the URLs of its own block.
      for (const { key, schemes } of protocolConfigs[protocol as keyof typeof protocolConfigs].urlFields) {
        const value = notifications[key]
        if (typeof value === 'string' && value !== '') checkUrl(value, `${at}.notifications.${key}`, schemes, allowInsecure, add)
      }
    }
  }
  return issues
}

function checkUrl(value: string, path: string, schemes: readonly string[], allowInsecure: boolean, add: (path: string, message: string) => void): void {
  const expected = schemes.map((s) => `${s}//`).join(' or ')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    add(path, `expected an absolute ${expected} URL, got ${describe(redactUrl(value))}, which is not an absolute URL`)
    return
  }
  if (!schemes.includes(url.protocol)) {
    add(path, `expected a ${expected} URL, got ${describe(redactUrl(value))}`)
    return
  }
  // React Native's URL has an empty hostname for ws:/wss: URLs (not a special scheme there): the
  // same URL read as http:// (which it parses fully) gives it.
  const host = url.hostname || new URL(`http${value.slice(url.protocol.length - 1)}`).hostname
  // A DNS name has at most 253 characters; a longer one is a paste gone wrong, refused here rather than at every dial.
  if (host.length > 253) {
    add(path, `the host name is ${host.length} characters long; a host name has at most 253. Check the URL.`)
    return
  }
  const clearText = url.protocol === 'ws:' || url.protocol === 'http:'
  if (clearText && !allowInsecure && !isLoopbackHost(host)) {
    add(path, `${url.protocol}// to ${host} would send account data in clear text; use ${url.protocol === 'ws:' ? 'wss' : 'https'}:// or set allowInsecureTransport: true`)
  }
}
