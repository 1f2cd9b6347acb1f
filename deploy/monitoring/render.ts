// The alerting rules have one source, deploy/monitoring/alerts.yaml (a plain Prometheus rules file).
// From it this script writes the Prometheus Operator's copy (deploy/k8s/prometheus-rule.yaml) and the
// alert table of docs/OBSERVABILITY.md, so neither can drift from the rules; the suite
// (test/deploy-monitoring.test.ts) fails while either is stale.
//
//   npx tsx deploy/monitoring/render.ts              write both
//   npx tsx deploy/monitoring/render.ts --unit-test  run promtool's unit tests (alerts.test.yaml)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
export const RULES_FILE = join(here, 'alerts.yaml');
export const RULE_TESTS_FILE = join(here, 'alerts.test.yaml');
export const PROMETHEUS_RULE_FILE = resolve(here, '../k8s/prometheus-rule.yaml');
export const OBSERVABILITY_DOC = resolve(here, '../../docs/OBSERVABILITY.md');
export const TABLE_BEGIN = '<!-- alerts: generated from deploy/monitoring/alerts.yaml by deploy/monitoring/render.ts -->';
export const TABLE_END = '<!-- alerts: end -->';

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleGroup {
  name: string;
  rules: Rule[];
}

export function readRules(): { groups: RuleGroup[] } {
  return parseYaml(readFileSync(RULES_FILE, 'utf8')) as { groups: RuleGroup[] };
}

export const alertsOf = (rules: { groups: RuleGroup[] }): Rule[] => rules.groups.flatMap((g) => g.rules).filter((r) => r.alert);

/** The PrometheusRule: the same groups, verbatim. */
export function renderPrometheusRule(): string {
  const header = [
    '# GENERATED from deploy/monitoring/alerts.yaml by `npx tsx deploy/monitoring/render.ts`: edit that file.',
    "# The Prometheus Operator loads it when its Prometheus's ruleSelector matches these labels (set",
    "# yours: kube-prometheus-stack selects `release: <its release name>` by default; deploy/README.md).",
  ];
  const rule = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'expertnet-alerts',
      namespace: 'expertnet',
      labels: { 'app.kubernetes.io/name': 'expertnet-api', 'app.kubernetes.io/component': 'alerts', release: 'prometheus' },
    },
    spec: readRules(),
  };
  return `${header.join('\n')}\n${stringifyYaml(rule, { lineWidth: 0 })}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One row per alerting rule: what it checks, for how long, how loud, and where its runbook is. */
export function renderAlertTable(): string {
  const rows = alertsOf(readRules()).map((r) => {
    const role = r.labels?.role ? ` (${r.labels.role})` : '';
    const runbook = r.annotations!.runbook_url!;
    const anchor = runbook.slice(runbook.indexOf('#'));
    return `| \`${r.alert}\`${role} | \`${cell(r.expr)}\` | ${r.for} | ${r.labels!.severity} | [runbook](OPERATIONS.md${anchor}) |`;
  });
  return [TABLE_BEGIN, '| alert | fires when (PromQL) | for | severity | runbook |', '| --- | --- | --- | --- | --- |', ...rows, TABLE_END].join('\n');
}

/** docs/OBSERVABILITY.md with its alert table replaced by the rendered one. */
export function renderObservabilityDoc(): string {
  const doc = readFileSync(OBSERVABILITY_DOC, 'utf8');
  const begin = doc.indexOf(TABLE_BEGIN);
  const end = doc.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`${OBSERVABILITY_DOC}: no alert table markers`);
  return doc.slice(0, begin) + renderAlertTable() + doc.slice(end + TABLE_END.length);
}

/**
 * A directory holding the rules without their annotations and the unit tests: promtool compares
 * annotations too, and their rendered values would only repeat the tests' series.
 */
export function unitTestDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'expertnet-rules-'));
  const rules = readRules();
  for (const rule of rules.groups.flatMap((g) => g.rules)) delete rule.annotations;
  writeFileSync(join(dir, 'alerts.yaml'), stringifyYaml(rules));
  copyFileSync(RULE_TESTS_FILE, join(dir, 'alerts.test.yaml'));
  return dir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--unit-test')) {
    execFileSync('promtool', ['test', 'rules', 'alerts.test.yaml'], { cwd: unitTestDir(), stdio: 'inherit' });
  } else {
    writeFileSync(PROMETHEUS_RULE_FILE, renderPrometheusRule());
    writeFileSync(OBSERVABILITY_DOC, renderObservabilityDoc());
  }
}
