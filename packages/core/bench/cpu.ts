/** CPU time of this process (user + system) in milliseconds: what a benchmark of client cost reads. */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

export const tick = () => new Promise<void>((resolve) => setImmediate(resolve))
