// The key table's rows for what the daemon tells its operator: events, metrics and traces.
import { metricsAddrKind } from './budgetKeys.js';
import { boolKind, enumKind, nullableUrlKind } from './kinds.js';
import type { KeyTable } from './schema.js';

type ObservabilityKey =
  | 'observability.log_level'
  | 'observability.log_content'
  | 'observability.metrics_addr'
  | 'observability.otlp_endpoint';

export const OBSERVABILITY_KEYS: Pick<KeyTable, ObservabilityKey> = {
  'observability.log_level': {
    kind: enumKind(['debug', 'info', 'warn', 'error']),
    default: 'info',
    doc: 'Lowest event level written.',
  },
  'observability.log_content': {
    kind: boolKind(),
    default: false,
    doc: 'Add message text, tool arguments and workflow run outputs (run.done).',
  },
  'observability.metrics_addr': {
    kind: metricsAddrKind(),
    default: null,
    doc: 'HOST:PORT serving /metrics (Prometheus), /healthz and /readyz; port 0 = a free port; null = none.',
  },
  'observability.otlp_endpoint': {
    kind: nullableUrlKind(),
    default: null,
    doc: 'OTLP/HTTP traces URL, used as is (http://host:4318/v1/traces); default from the OTEL_* variables; null = off.',
  },
};
