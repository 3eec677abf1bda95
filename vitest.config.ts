import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import projects from './vitest.workspace.js'

/**
 * Files that take longest (they build an app or a site, or run relays against nats-server), started
 * first: on two cores a long file that starts last is the run's tail. A fresh clone has no timings
 * cached, and vitest then orders by file size, which says little about these.
 */
const LONG_FIRST = [
  /docs-check\/test\/site\.test/,
  /next\/test\/next\.browser/,
  /relay\/src\/startRelay\.test/,
  /membership\.test/,
  /nuxt\/test\/nuxt\.browser/,
  /cliOperations\.test/,
  /CrossTabPool\.test/,
  /failover\.test/,
  /sveltekit\/test\//,
  /example.*react\/test\/browser|react\/test\/browser/,
  /liveness\.test/,
  /partitionRead\.test/,
]
class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (spec: TestSpecification) => {
      const i = LONG_FIRST.findIndex((pattern) => pattern.test(spec.moduleId))
      return i < 0 ? LONG_FIRST.length : i
    }
    return [...sorted].sort((a, b) => rank(a) - rank(b))
  }
}

// vitest.workspace.ts stays the one list of test projects; naming it here (test.projects) is what
// vitest 3.2 reads without its workspace-file deprecation warning.
// One test file per core, not vitest's default of one fewer: on two cores that default is one file at a
// time, and most files here wait on sockets, leases and builds rather than compute (the whole suite took
// 867 s on one worker and 352 s on two, every test passing). The tests are written for a shared, noisy
// machine: nothing waits on a pace, every wait has a deadline sized for load.
export default defineConfig({ test: { projects, maxWorkers: availableParallelism(), minWorkers: 1, sequence: { sequencer: LongFirst } } })
