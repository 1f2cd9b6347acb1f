// The alerting rules (deploy/monitoring/alerts.yaml): valid for Prometheus (`promtool check rules`),
// unit-tested (`promtool test rules` on alerts.test.yaml: each alert fires on series that should
// alert and stays silent on series that should not), complete (threshold, for, severity, a runbook
// section that exists), written over metrics the processes export, and copied without drift into
// the PrometheusRule and docs/OBSERVABILITY.md. promtool is Debian's `prometheus` package (.ci/run
// installs it); without it this suite fails, it does not skip.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  alertsOf, OBSERVABILITY_DOC, PROMETHEUS_RULE_FILE, readRules, renderObservabilityDoc, renderPrometheusRule, RULE_TESTS_FILE, RULES_FILE, unitTestDir,
} from '../deploy/monitoring/render.js';
import { registry } from '../services/kit/metrics.js';
import { ALL_ROLES } from '../services/kit/config.js';
import { appContainer, configMapData, deployDir, find, type Json, root, selects } from './helpers/deploy-files.js';

function promtool(args: string[], cwd?: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (run.error) throw new Error(`promtool is not installed (Debian's "prometheus" package; .ci/run installs it): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const rules = readRules();
const alerts = alertsOf(rules);
const ruleTests = parseYaml(readFileSync(RULE_TESTS_FILE, 'utf8')) as { tests: Json[] };

/** GitHub's heading anchors: lower case, punctuation but hyphens dropped, spaces to hyphens. */
const anchorsOf = (markdown: string) =>
  new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')));

/** Metric names an expression reads: identifiers outside label matchers, strings and by()/without() lists. */
function metricNames(expr: string): string[] {
  const bare = expr.replace(/"[^"]*"/g, '').replace(/\{[^}]*\}/g, '').replace(/\b(by|without)\s*\([^)]*\)/g, '').replace(/\[[^\]]*\]/g, '');
  const words = bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  const promql = new Set(['sum', 'max', 'min', 'avg', 'rate', 'absent', 'and', 'or', 'unless', 'histogram_quantile', 'offset']);
  return words.filter((w) => !promql.has(w) && !w.includes(':'));
}

describe('deploy/monitoring: alerting rules', () => {
  it('promtool is installed and accepts the rules file', () => {
    const { status, output } = promtool(['check', 'rules', RULES_FILE]);
    expect(output).toMatch(/SUCCESS: \d+ rules found/);
    expect(status).toBe(0);
  });

  it("promtool's unit tests pass: every alert fires on the series that should alert and stays silent on the others", () => {
    const { status, output } = promtool(['test', 'rules', 'alerts.test.yaml'], unitTestDir());
    expect(output).toContain('SUCCESS');
    expect(status, output).toBe(0);
  });

  it('the unit tests can fail: a rule that no longer fires is reported', () => {
    const dir = unitTestDir();
    const file = join(dir, 'alerts.yaml');
    execFileSync('sed', ['-i', 's/max(search_jobs_open) > 100/max(search_jobs_open) > 1000/', file]);
    const { status, output } = promtool(['test', 'rules', 'alerts.test.yaml'], dir);
    expect(status).not.toBe(0);
    expect(output).toContain('ExpertnetSearchBacklog');
  });

  it('each alert is unit-tested both firing and silent', () => {
    const checks = ruleTests.tests.flatMap((t) => t.alert_rule_test as Json[]);
    for (const alert of new Set(alerts.map((a) => a.alert!))) {
      const mine = checks.filter((c) => c.alertname === alert);
      expect(mine.some((c) => c.exp_alerts.length > 0), `${alert} fires somewhere`).toBe(true);
      expect(mine.some((c) => c.exp_alerts.length === 0), `${alert} stays silent somewhere`).toBe(true);
    }
  });

  it('each alert has a threshold, a for:, a severity, a summary and a runbook_url naming a section of docs/OPERATIONS.md', () => {
    const anchors = anchorsOf(readFileSync(join(root, 'docs', 'OPERATIONS.md'), 'utf8'));
    expect(alerts.length).toBeGreaterThan(15);
    for (const alert of alerts) {
      const name = `${alert.alert}${alert.labels?.role ? ` ${alert.labels.role}` : ''}`;
      expect(alert.expr, name).toMatch(/(>|<|==)\s*\d|absent\(/);
      expect(alert.for, name).toMatch(/^\d+[smh]$/);
      expect(['page', 'ticket'], name).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, name).toBeTruthy();
      expect(alert.annotations?.description, name).toBeTruthy();
      const [path, anchor] = (alert.annotations?.runbook_url ?? '').split('#');
      expect(path, name).toBe('docs/OPERATIONS.md');
      expect(anchor, name).toMatch(/^runbook-/);
      expect(anchors.has(anchor!), `${name}: docs/OPERATIONS.md#${anchor}`).toBe(true);
    }
  });

  it('the rules cover the paging basics: a process down and every role absent, a dependency down, REST/MCP/search burn rates, both queues', () => {
    const names = alerts.map((a) => a.alert);
    expect(alerts.filter((a) => a.alert === 'ExpertnetRoleAbsent').map((a) => a.labels!.role).sort()).toEqual(
      ['billing', 'communities', 'enrichment', 'gateway', 'identity', 'mcp', 'search'],
    );
    for (const name of ['ExpertnetProcessDown', 'ExpertnetDependencyDown', 'ExpertnetSearchBacklog', 'ExpertnetEnrichmentBacklog']) expect(names).toContain(name);
    for (const slo of ['RestErrors', 'RestLatency', 'McpErrors', 'McpLatency', 'SearchFailures', 'SearchLatency']) {
      expect(names).toContain(`Expertnet${slo}BudgetBurnFast`);
      expect(names).toContain(`Expertnet${slo}BudgetBurnSlow`);
    }
  });

  it('every metric the rules read is one the processes export', async () => {
    const exported = new Set(['up']);
    for (const metric of await registry.getMetricsAsJSON()) {
      exported.add(metric.name);
      if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) exported.add(`${metric.name}${suffix}`);
    }
    // Queue gauges registered by the search and enrichment services when they start.
    const sources = execFileSync('grep', ['-rhoE', "gaugeFromStore\\(\\s*'[a-z_]+'", join(root, 'services')], { encoding: 'utf8' });
    for (const m of sources.matchAll(/'([a-z_]+)'/g)) exported.add(m[1]!);
    const read = new Set(rules.groups.flatMap((g) => g.rules).flatMap((r) => metricNames(r.expr)));
    expect([...read].filter((n) => !exported.has(n))).toEqual([]);
    expect(read).toContain('search_jobs_open');
  });

  it("the PodMonitor scrapes every role's admin port with job = the role, the label the rules select on", () => {
    const monitor = find('PodMonitor', 'expertnet-api');
    const endpoint = (monitor.spec.podMetricsEndpoints as Json[])[0]!;
    expect(endpoint.path).toBe('/metrics');
    const processDown = alerts.find((a) => a.alert === 'ExpertnetProcessDown')!;
    for (const role of ALL_ROLES) {
      const podLabels = find('Deployment', role).spec.template.metadata.labels as Record<string, string>;
      expect(selects(monitor.spec.selector.matchLabels, podLabels), role).toBe(true);
      expect(podLabels[monitor.spec.jobLabel], role).toBe(role);
      expect((appContainer(role).ports as Json[]).find((p) => p.name === endpoint.port)?.containerPort, role).toBe(9090);
      expect(processDown.expr, role).toMatch(new RegExp(`job=~"[^"]*\\b${role}\\b`));
    }
  });

  it('the collector samples traces and exports them over OTLP to the backend its environment names; two replicas under a disruption budget (Kubernetes), Jaeger by default (compose)', () => {
    const tracesOf = (config: Json) => config.service.pipelines.traces as Json;
    const check = (config: Json) => {
      const traces = tracesOf(config);
      expect((traces.processors as string[]).some((p) => /^(probabilistic_sampler|tail_sampling)\b/.test(p))).toBe(true);
      const exporter = (traces.exporters as string[]).find((e) => /^otlp(\/|$)/.test(e));
      expect(config.exporters[exporter!].endpoint).toBe('${env:TRACES_BACKEND_ENDPOINT}');
    };
    check(parseYaml(configMapData('otel-collector-config')['config.yaml']!) as Json);
    const deployment = find('Deployment', 'otel-collector');
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    const env = (deployment.spec.template.spec.containers[0].envFrom as Json[]).map((e) => configMapData(e.configMapRef.name));
    expect(Object.assign({}, ...env).TRACES_BACKEND_ENDPOINT).toMatch(/^[a-z0-9.-]+:\d+$/);
    const pdb = find('PodDisruptionBudget', 'otel-collector');
    expect(selects(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels)).toBe(true);
    expect(pdb.spec.maxUnavailable).toBe(1);

    check(parseYaml(readFileSync(join(deployDir, 'compose', 'otel-collector.yaml'), 'utf8')) as Json);
    const compose = parseYaml(readFileSync(join(deployDir, 'compose.yaml'), 'utf8')) as Json;
    expect(compose.services['otel-collector'].environment.TRACES_BACKEND_ENDPOINT).toContain('jaeger:4317');
    expect(compose.services.jaeger.image).toMatch(/^jaegertracing\/all-in-one:/);
  });

  it('deploy/k8s/prometheus-rule.yaml and the alert table of docs/OBSERVABILITY.md are generated from the rules (npx tsx deploy/monitoring/render.ts)', () => {
    expect(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')).toBe(renderPrometheusRule());
    expect(readFileSync(OBSERVABILITY_DOC, 'utf8')).toBe(renderObservabilityDoc());
    const rule = parseYaml(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')) as Json;
    expect(rule.spec).toEqual(rules);
  });
});
