import { ServiceError } from '../errors/ServiceError.js'
import { describe } from '../utils/address.js'
import type { NotificationsConfig, NotificationsConfigInput, ResolvedSolver } from './types.js'
import { validateConfig } from './validateConfig.js'

/**
 * Validates a configuration and returns it with `getSolver`; write it with literal types (the generic
 * is `const`) so a literal `solverId` selects the right protocol's types. Throws `INVALID_CONFIG` listing every problem at once, each with its path (also as `error.issues`).
 *
 * @example
 * const config = createConfig({
 *   defaultChainId: 42161,
 *   chains: { 42161: { defaultSolver: 'beta', solvers: { beta: { url: 'https://beta.example', notifications: { protocol: 'rasa', url: 'wss://beta.example/ws' } } } } },
 * })
 */
export function createConfig<const C extends NotificationsConfigInput>(input: C): NotificationsConfig<C> {
  const issues = validateConfig(input)
  if (issues.length > 0) {
    throw new ServiceError(
      'INVALID_CONFIG',
      `Invalid notifications config: ${issues.length === 1 ? 'one problem' : `${issues.length} problems`} (fix them before creating a client; the list is also on error.issues):\n- ${issues.map((i) => `${i.path}: ${i.message}`).join('\n- ')}`,
      { issues },
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
    // Only a number (or its string form) names a chain: anything else (an object, even one without a
    // prototype, which cannot become a key) is an unknown chain, never a TypeError from the lookup.
    const chain = typeof chainId !== 'object' && Object.hasOwn(chains, chainId) ? chains[chainId] : undefined
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
