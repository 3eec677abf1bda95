/** Reactive props for test components: mutate the returned object and the component follows. */
export function reactiveProps<T extends Record<string, unknown>>(initial: T): T {
  const props = $state(initial)
  return props
}
