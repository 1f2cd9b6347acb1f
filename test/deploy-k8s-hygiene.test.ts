// Hygiene of the deployment files, checked offline: every image pinned to a release (a specific
// version tag, and a sha256 digest for every image from a registry; never `latest` or a floating `-latest`), pull
// policies that fit, and the migrations Job's database role apart from the application's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ALL_ROLES } from '../services/kit/config.js';
import { allContainers, deployDir, find, type Json, kustomization, label, podTemplates } from './helpers/deploy-files.js';

/** name:tag or name:tag@sha256:<64 hex>, the tag a release (1.2, v1.31.10, 0.111.0), not a moving one. */
const PINNED = /^[a-z0-9./-]+:v?\d+(\.\d+)+(@sha256:[0-9a-f]{64})?$/;

/** An image from a registry carries its digest too: a re-pushed tag cannot change what runs. */
const PINNED_WITH_DIGEST = /^[a-z0-9./-]+:v?\d+(\.\d+)+@sha256:[0-9a-f]{64}$/;
/** The application's own image, built from this checkout: its tag set by the kustomization. */
const APPLICATION_IMAGE = 'expertnet-api';

describe('deploy: hygiene', () => {
  const compose = parseYaml(readFileSync(join(deployDir, 'compose.yaml'), 'utf8'), { merge: true }) as Json;

  it('the pin check refuses floating tags and accepts releases, with or without a digest', () => {
    for (const image of ['envoyproxy/envoy:v1.31-latest', 'redis:latest', 'postgres', 'redis:7', 'otel/opentelemetry-collector:0.111.0@sha256:abc']) expect(image).not.toMatch(PINNED);
    for (const image of ['envoyproxy/envoy:v1.31.10', `postgres:15.8@sha256:${'a'.repeat(64)}`]) expect(image).toMatch(PINNED);
  });

  it('every image of the Kubernetes manifests and of compose is pinned to a release; pull policies are IfNotPresent', () => {
    for (const { doc, spec } of podTemplates()) {
      for (const c of allContainers(spec)) {
        expect(c.image, `${label(doc)} ${c.name}`).toMatch(c.image.startsWith(`${APPLICATION_IMAGE}:`) ? PINNED : PINNED_WITH_DIGEST);
        // A pinned tag never changes under the same name: pulling it again on every start buys nothing.
        expect(c.imagePullPolicy, `${label(doc)} ${c.name}`).toBe('IfNotPresent');
      }
    }
    for (const image of kustomization.images as Json[]) expect(`${image.newName}:${image.newTag}${image.digest ? `@${image.digest}` : ''}`).toMatch(PINNED);
    for (const [name, service] of Object.entries(compose.services as Record<string, Json>)) {
      if (service.build) continue; // the image built here, from this checkout
      expect(service.image, `compose ${name}`).toMatch(service.image.startsWith(`${APPLICATION_IMAGE}:`) ? PINNED : PINNED_WITH_DIGEST);
    }
  });

  it('the migrations Job connects as the schema-owning role from a Secret of its own; no serving pod reads it (deploy/postgres/roles.sql)', () => {
    const job = find('Job', 'expertnet-migrate');
    const url = (job.spec.template.spec.containers[0].env as Json[]).find((e) => e.name === 'DATABASE_URL');
    expect(url?.valueFrom?.secretKeyRef).toEqual({ name: 'expertnet-migrations', key: 'MIGRATION_DATABASE_URL' });
    for (const role of ALL_ROLES) {
      const secretsRead = allContainers(find('Deployment', role).spec.template.spec).flatMap((c) => (c.env ?? []) as Json[]).map((e) => e.valueFrom?.secretKeyRef?.name);
      expect(secretsRead, role).not.toContain('expertnet-migrations');
    }
    const roles = readFileSync(join(deployDir, 'postgres', 'roles.sql'), 'utf8');
    expect(roles).toMatch(/GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO expertnet_app/);
  });
});
