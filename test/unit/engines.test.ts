import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import semver from 'semver';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../src/util/project-root.js';

// `npm install` on the oldest Node.js the README supports warns of no package (issue #68, 9: a dev
// dependency's EBADENGINE warning for Node 20.19).

const manifest = z.object({ engines: z.object({ node: z.string() }) });
const lock = z.object({ packages: z.record(z.string(), z.object({ engines: z.union([z.record(z.string(), z.string()), z.array(z.string())]).optional() })) });

test('every locked package runs on the oldest Node.js Forest supports', () => {
  const oldest = semver.minVersion(manifest.parse(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'))).engines.node)!.version;
  assert.equal(oldest, '20.19.0');
  const packages = lock.parse(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8'))).packages;
  const refused = Object.entries(packages).flatMap(([name, entry]) => {
    const node = entry.engines && !Array.isArray(entry.engines) ? entry.engines['node'] : undefined;
    return node && !semver.satisfies(oldest, node) ? [`${name} (node ${node})`] : [];
  });
  assert.deepEqual(refused, []);
});
