import type { NotificationsConfig, NotificationsConfigInput, SolverId } from './types.js'

/**
 * Whether a runtime string (a URL parameter, a form field) is a solver id of the config, on `chainId`
 * when given, else on any chain; narrows it to the config's {@link SolverId}, so no cast is needed.
 *
 * @example
 * const solverId = params.get('solver') ?? ''
 * if (isSolverId(config, solverId)) client.search({ solverId, account })
 */
export function isSolverId<C extends NotificationsConfigInput>(config: NotificationsConfig<C>, value: unknown, chainId?: number): value is SolverId<C> {
  if (typeof value !== 'string') return false
  // A guard answers, never throws: a chainId that is not a number or string names no chain.
  if (chainId !== undefined && typeof chainId !== 'number' && typeof chainId !== 'string') return false
  const chains = config.chains as Readonly<Record<string, { solvers: Readonly<Record<string, unknown>> }>>
  const ids = chainId === undefined ? Object.keys(chains) : [String(chainId)]
  return ids.some((id) => Object.hasOwn(chains, id) && Object.hasOwn(chains[id]!.solvers, value))
}
