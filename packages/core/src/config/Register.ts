import type { NotificationsConfigInput, UnwrapConfig } from './types.js'

/**
 * Registers the app's config type once, so adapter hooks know its solver ids and type each search
 * result by a literal `solverId` without generics at every call (the pattern wagmi and TanStack
 * Router use). Empty until the app fills it through declaration merging.
 *
 * @example
 * declare module '@solver-notifications/core' {
 *   interface Register {
 *     config: typeof config
 *   }
 * }
 */
// biome-ignore lint/suspicious/noEmptyInterface: apps fill it through declaration merging
export interface Register {}

/**
 * The config input type a register-like type holds, or the wide input type when it holds none.
 *
 * @example
 * type C = ConfigOfRegister<{ config: typeof config }> // the literal input behind `config`
 */
export type ConfigOfRegister<R> = R extends { config: infer C } ? (UnwrapConfig<C> extends infer I extends NotificationsConfigInput ? I : NotificationsConfigInput) : NotificationsConfigInput

/**
 * The app's registered config input type (see {@link Register}); the wide input type when none is registered.
 *
 * @example
 * function useIds(): SolverId<RegisteredConfig>[] { … } // 'alpha' | 'beta' once registered
 */
export type RegisteredConfig = ConfigOfRegister<Register>
