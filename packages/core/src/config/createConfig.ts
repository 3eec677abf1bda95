import { ServiceError } from '../errors/ServiceError.js'
import { describe } from '../utils/address.js'
import { redactUrl } from '../utils/redactUrl.js'
import { protocolConfigs } from '../protocol/protocols.js'
import { HEADER_NAME, HEADER_VALUE } from './auth.js'
import { configSchema } from './configSchema.js'
import { isLoopbackHost } from './isLoopbackHost.js'
import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver } from './types.js'

/**
 * Validates a configuration and returns it with `getSolver`; write it with literal types (the generic
 * is `const`) so a literal `solverId` selects the right protocol's types. Throws `INVALID_CONFIG` naming each bad path.
 *
 * @example
 * const config = createConfig({
 *   defaultChainId: 42161,
 *   chains: { 42161: { defaultSolver: 'beta', solvers: { beta: { url: 'https://beta.example', notifications: { protocol: 'rasa', url: 'wss://beta.example/ws' } } } } },
 * })
 */
export function createConfig<const C extends NotificationsConfigInput>(input: C): NotificationsConfig<C> {
  const problems: string[] = []
  const parsed = configSchema().safeParse(input)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${formatPath(issue.path)}: ${issue.message}`)
  } else {
    checkSemantics(input, problems)
  }
  if (problems.length > 0) {
    throw new ServiceError(
      'INVALID_CONFIG',
      `Invalid notifications config (fix these before creating a client):\n- ${problems.join('\n- ')}`,
    )
  }
  const allowInsecureTransport = input.allowInsecureTransport === true
  const chains = input.chains as NotificationsConfigInput['chains']
  // Resolved solvers are frozen and reused: every stream and search call resolves one, and the pool
  // keys its endpoints by the resolved object (subscribing 10,000 accounts stays cheap).
  const resolved = new Map<unknown, Map<unknown, ResolvedSolver>>()
  /** one object per (chain, solver), however it was asked for (defaults or explicit ids) */
  const canonical = new Map<string, ResolvedSolver>()
  const resolve = (chainIdParam: number | undefined, solverIdParam: string | undefined): ResolvedSolver => {
    const chainId = chainIdParam ?? input.defaultChainId
    const chain = Object.hasOwn(chains, chainId) ? chains[chainId] : undefined
    if (!chain) {
      throw new ServiceError(
        'UNKNOWN_CHAIN',
        `Chain ${describe(chainId)} is not configured. Configured chains: ${Object.keys(chains).join(', ')}. Add it to config.chains or pass one of those.`,
      )
    }
    const solverId = solverIdParam ?? chain.defaultSolver
    const solver = typeof solverId === 'string' && Object.hasOwn(chain.solvers, solverId) ? chain.solvers[solverId] : undefined
    if (!solver) {
      throw new ServiceError(
        'UNKNOWN_SOLVER',
        `Solver ${describe(solverId)} is not configured on chain ${chainId}. Configured solvers: ${Object.keys(chain.solvers).join(', ')}.`,
      )
    }
    const key = `${chainId}\u0000${solverId}`
    let one = canonical.get(key)
    if (!one) {
      const headers = solver.headers ? Object.freeze({ ...solver.headers }) : undefined
      canonical.set(key, (one = Object.freeze({ chainId, solverId, url: solver.url, ...(headers ? { headers } : {}), notifications: solver.notifications })))
    }
    return one
  }
  return Object.freeze({
    defaultChainId: input.defaultChainId,
    chains: input.chains,
    allowInsecureTransport,
    getSolver(params?: { chainId?: number | undefined; solverId?: string | undefined }): ResolvedSolver {
      const chainId = params?.chainId
      const solverId = params?.solverId
      let byChain = resolved.get(chainId)
      const hit = byChain?.get(solverId)
      if (hit) return hit
      const solver = resolve(chainId, solverId)
      if (!byChain) resolved.set(chainId, (byChain = new Map()))
      byChain.set(solverId, solver)
      return solver
    },
  })
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.')
}

/** Rules zod's shape cannot express: cross references, URL schemes and the clear-text transport rule. */
function checkSemantics(input: NotificationsConfigInput, problems: string[]): void {
  const allowInsecure = input.allowInsecureTransport === true
  const chainIds = Object.keys(input.chains)
  if (chainIds.length === 0) problems.push('chains: configure at least one chain')
  if (!chainIds.includes(String(input.defaultChainId))) {
    problems.push(`defaultChainId: ${input.defaultChainId} is not in chains (configured: ${chainIds.join(', ') || 'none'})`)
  }
  for (const chainId of chainIds) {
    const base = `chains.${chainId}`
    if (!/^[1-9]\d*$/.test(chainId)) problems.push(`${base}: chain ids must be positive integers`)
    const chain = input.chains[Number(chainId)]!
    const solverIds = Object.keys(chain.solvers)
    if (!solverIds.includes(chain.defaultSolver)) {
      problems.push(`${base}.defaultSolver: "${chain.defaultSolver}" is not in solvers (configured: ${solverIds.join(', ') || 'none'})`)
    }
    for (const solverId of solverIds) {
      const solver = chain.solvers[solverId]!
      const at = `${base}.solvers.${solverId}`
      if (solver.url !== undefined) checkUrl(solver.url, `${at}.url`, ['http:', 'https:'], allowInsecure, problems)
      for (const [name, value] of Object.entries(solver.headers ?? {})) {
        if (!HEADER_NAME.test(name)) problems.push(`${at}.headers: ${describe(name)} is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`)
        else if (!HEADER_VALUE.test(value)) problems.push(`${at}.headers.${name}: a header value cannot contain line breaks`)
      }
      // Each protocol names the URLs of its own block.
      const notifications = solver.notifications as unknown as Record<string, unknown>
      for (const { key, schemes } of protocolConfigs[solver.notifications.protocol].urlFields) {
        const value = notifications[key]
        if (value !== undefined) checkUrl(value as string, `${at}.notifications.${key}`, [...schemes], allowInsecure, problems)
      }
    }
  }
}

function checkUrl(value: string, path: string, schemes: string[], allowInsecure: boolean, problems: string[]): void {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    problems.push(`${path}: ${describe(typeof value === 'string' ? redactUrl(value) : value)} is not an absolute URL; expected ${schemes.map((s) => `${s}//`).join(' or ')}`)
    return
  }
  if (!schemes.includes(url.protocol)) {
    problems.push(`${path}: expected a ${schemes.map((s) => `${s}//`).join(' or ')} URL, got ${describe(redactUrl(String(value)))}`)
    return
  }
  // A DNS name has at most 253 characters; a longer one is a paste gone wrong, refused here rather than at every dial.
  if (url.hostname.length > 253) {
    problems.push(`${path}: the host name is ${url.hostname.length} characters long; a host name has at most 253. Check the URL.`)
    return
  }
  const clearText = url.protocol === 'ws:' || url.protocol === 'http:'
  if (clearText && !allowInsecure && !isLoopbackHost(url.hostname)) {
    problems.push(
      `${path}: ${url.protocol}// to ${url.hostname} would send account data in clear text; use ${url.protocol === 'ws:' ? 'wss' : 'https'}:// or set allowInsecureTransport: true`,
    )
  }
}
