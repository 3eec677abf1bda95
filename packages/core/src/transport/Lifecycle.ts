/**
 * What the environment says about the app's life: the page went to the background or came back,
 * the network went away or came back, or the machine woke from sleep.
 *
 * @example
 * const event: LifecycleEvent = 'wake'
 */
export type LifecycleEvent = 'foreground' | 'background' | 'online' | 'offline' | 'wake'

/**
 * A source of {@link LifecycleEvent}s the client listens to while it holds sockets. Browsers get one
 * by default; React Native and other hosts bind their own (see the README for `AppState`).
 *
 * @example
 * const lifecycle: Lifecycle = {
 *   subscribe(listener) {
 *     const sub = AppState.addEventListener('change', (s) => listener(s === 'active' ? 'foreground' : 'background'))
 *     return () => sub.remove()
 *   },
 * }
 */
export interface Lifecycle {
  subscribe(listener: (event: LifecycleEvent) => void): () => void
}
