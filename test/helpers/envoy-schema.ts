// Envoy's API schema, loaded from the .proto files @grpc/grpc-js-xds ships (deps/envoy-api, xds,
// protoc-gen-validate, googleapis), and where the edge's configuration lives: envoy/envoy.yaml.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';

export const repoRoot = path.resolve(new URL('../..', import.meta.url).pathname);
export const ENVOY_YAML = path.join(repoRoot, 'envoy', 'envoy.yaml');

// Every extension (typed_config / Any) the configuration may name must be loaded here; an @type
// outside this schema is reported as unresolvable.
const PROTO_FILES = [
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/http/cors/v3/cors.proto',
  'envoy/extensions/access_loggers/file/v3/file.proto',
  'envoy/extensions/formatter/req_without_query/v3/req_without_query.proto',
  'envoy/config/trace/v3/opentelemetry.proto',
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/request_id/uuid/v3/uuid.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto',
  'envoy/extensions/resource_monitors/downstream_connections/v3/downstream_connections.proto',
];

export function loadEnvoySchema(): protobuf.Root {
  const require = createRequire(import.meta.url);
  const xdsDir = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  const protobufjsDir = path.dirname(require.resolve('protobufjs/package.json'));
  const includeDirs = [
    ...['envoy-api', 'xds', 'protoc-gen-validate', 'googleapis', 'udpa', 'cncf'].map((d) => path.join(xdsDir, 'deps', d)),
    protobufjsDir, // google/protobuf/descriptor.proto, which the annotations extend
  ].filter((d) => existsSync(d));
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    // google/protobuf/{any,duration,struct,...}.proto are bundled with protobufjs
    if (target.startsWith('google/protobuf/') && protobuf.common.get(target)) return target;
    for (const dir of includeDirs) {
      const candidate = path.join(dir, target);
      if (existsSync(candidate)) return candidate;
    }
    return protobuf.util.path.resolve(origin, target);
  };
  root.loadSync(PROTO_FILES, { keepCase: true });
  root.resolveAll();
  return root;
}
