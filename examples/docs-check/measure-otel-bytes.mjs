// What OpenTelemetry adds to a browser page, min+gzip (esbuild, gzip -9), for the observability guide's
// browser setup: this package alone, the API, and the web SDK's providers with both OTLP/HTTP exporters.
// Run from the repository: `node examples/docs-check/measure-otel-bytes.mjs`.
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const parts = [
  { name: '@solver-notifications/otel', code: "export { instrumentNotifications } from '@solver-notifications/otel'", external: ['@opentelemetry/api', '@solver-notifications/core'] },
  { name: '@opentelemetry/api (what the package uses: metrics, trace)', code: "export { metrics, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api'", external: [] },
  {
    name: 'web SDK: tracer and meter providers, both OTLP/HTTP exporters',
    code: [
      "export { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http'",
      "export { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'",
      "export { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'",
      "export { BatchSpanProcessor, WebTracerProvider } from '@opentelemetry/sdk-trace-web'",
    ].join('\n'),
    external: ['@opentelemetry/api'],
  },
]
for (const part of parts) {
  const out = await build({
    stdin: { contents: part.code, resolveDir: here, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@solver-notifications/source'],
    external: part.external,
    write: false,
    logLevel: 'silent',
  })
  const bytes = gzipSync(out.outputFiles[0].contents, { level: 9 }).length
  console.log(`${part.name}: ${(bytes / 1024).toFixed(1)} KiB min+gzip`)
}
