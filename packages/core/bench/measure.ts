/**
 * Same-run comparison helpers: candidate and reference are interleaved over several rounds and the
 * median of each is kept, so machine noise moves both alike.
 */
export function throughput(fn: () => number, rounds = 7): number {
  const samples: number[] = []
  for (let r = 0; r < rounds; r++) {
    const start = performance.now()
    const items = fn()
    samples.push(items / ((performance.now() - start) / 1000))
  }
  return median(samples)
}

export function compare(name: string, candidate: () => number, reference: () => number, rounds = 7) {
  // warm both paths so the JIT is not measured
  candidate()
  reference()
  const c: number[] = []
  const ref: number[] = []
  for (let r = 0; r < rounds; r++) {
    c.push(throughput(candidate, 1))
    ref.push(throughput(reference, 1))
  }
  return { name, candidate: median(c), reference: median(ref), ratio: median(c) / median(ref) }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

export function report(id: string, what: string, result: { candidate: number; reference: number; ratio: number }, target: string, pass: boolean, unit = 'frames/s') {
  console.log(
    `${id} ${what}: ${fmt(result.candidate)} ${unit} vs reference ${fmt(result.reference)} ${unit} → ratio ${result.ratio.toFixed(2)}× (target ${target}) ${pass ? 'PASS' : 'MISS'}`,
  )
}

/** Async variant of {@link compare}: warm both, then interleave rounds and keep medians. */
export async function compareAsync(candidate: () => Promise<number>, reference: () => Promise<number>, rounds = 5) {
  await candidate()
  await reference()
  const c: number[] = []
  const r: number[] = []
  for (let round = 0; round < rounds; round++) {
    c.push(await candidate())
    r.push(await reference())
  }
  return { candidate: median(c), reference: median(r), ratio: median(c) / median(r) }
}
