// @tot/core/otel: OpenTelemetry traces and GenAI client metrics of runs, read from the run's
// events. `@opentelemetry/api` is an optional peer; the SDK and exporters are the host's.
export { telemetryListener, withTelemetry, type TelemetryOptions } from './run-telemetry.js';
export type { RunTraceContext } from './trace-context.js';
