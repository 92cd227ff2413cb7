// The authorization matrix (issue 7): every route of the route table × every caller × every
// visibility. Each route's entry (test/api/authz/entries-*.ts) aims its requests at the objects
// of each visibility; every answer and every event the callers' queues receive is searched for
// marker strings and ids the caller may not see (model.ts says who may see what), refusals must
// carry the spec's codes, and callers without a working key of the organization get 401.
// A route added to src/http/routes.ts without an entry here fails the first test.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Endpoint } from '../../src/http/endpoint.js';
import { API_PREFIX } from '../../src/http/dispatch.js';
import { apiRoutes, siteRoutes } from '../../src/http/routes.js';
import type { TestResponse } from '../helpers/server.js';
import { channelEntries } from './authz/entries-channels.js';
import { messageEntries } from './authz/entries-messages.js';
import { peopleEntries, seedGroup } from './authz/entries-people.js';
import { realmEntries } from './authz/entries-realm.js';
import type { Entry, Matrix, Probe } from './authz/entry.js';
import { QUEUE_CALLERS, startFixture, type Fixture } from './authz/fixture.js';
import { CALLERS, entitled, REFUSAL, UNAUTHENTICATED, VISIBILITIES, type Caller, type Viewer } from './authz/model.js';
import { findLeaks } from './authz/scan.js';

const MATRIX: Matrix = { ...messageEntries, ...channelEntries, ...peopleEntries, ...realmEntries };

interface Route {
  readonly key: string;
  readonly method: string;
  readonly endpoint: Endpoint;
}

const ROUTES: Route[] = [
  ...Object.entries(apiRoutes).flatMap(([path, methods]) => Object.entries(methods).map(([m, e]) => ({ key: `${m} ${API_PREFIX}${path}`, method: m, endpoint: e as Endpoint }))),
  ...Object.entries(siteRoutes).flatMap(([path, methods]) => Object.entries(methods).map(([m, e]) => ({ key: `${m} ${path}`, method: m, endpoint: e as Endpoint }))),
];

let fx: Fixture;
const seen = new Map<Viewer, Set<string>>();
const stats = { probes: 0, events: 0 };

const matrix = suite('authorization matrix');
matrix.before(async () => {
  fx = await startFixture();
  await seedGroup(fx);
});
matrix.after(async () => {
  await fx.server.close();
});

matrix('every route of the route table has a matrix entry, and every entry a route', () => {
  const keys = new Set(ROUTES.map((r) => r.key));
  assert.equal(ROUTES.filter((r) => !(r.key in MATRIX)).map((r) => r.key), [], 'routes without a matrix entry: classify them in test/api/authz/entries-*.ts');
  assert.equal(Object.keys(MATRIX).filter((k) => !keys.has(k)), [], 'matrix entries for routes that do not exist');
});

/** Whose view the answer is held to, or null when the caller must have been refused with a 401. */
function viewerOf(route: Route, c: Caller): Viewer | null {
  if (c === 'otherOrgHome') return 'nobody';
  if (route.endpoint.auth === 'none') return 'anonymous';
  if (!UNAUTHENTICATED.has(c)) return c;
  return c === 'anonymous' && route.endpoint.auth === 'optional' ? 'anonymous' : null;
}

function judge(route: Route, c: Caller, probe: Probe, res: TestResponse): string[] {
  const problems: string[] = [];
  const label = `${route.key} as ${c}: ${probe.path} ${JSON.stringify(probe.params ?? {})}`;
  const fail = (why: string) => problems.push(`${label}: ${why} (got ${res.status} ${res.text.slice(0, 200)})`);
  if (res.status >= 500) fail('server error');
  const viewer = viewerOf(route, c);
  const errorIs = (status: number, code: string | readonly string[], msg?: string) =>
    res.status === status && res.json.result === 'error' && [code].flat().includes(res.json.code) && (msg === undefined || res.json.msg === msg);
  if (viewer === null) {
    const want = REFUSAL[c]!;
    if (!errorIs(401, want.code, want.msg)) fail(`expected 401 ${want.code}`);
  } else if (probe.always) {
    if (!errorIs(probe.always.status, probe.always.code)) fail(`expected ${probe.always.status} ${probe.always.code}`);
  } else if (probe.target) {
    // A spectator is refused anything outside web-public data with the anonymous 401.
    const spectatorRefused = viewer === 'anonymous' && errorIs(401, REFUSAL.anonymous!.code, REFUSAL.anonymous!.msg);
    const ok = entitled(viewer, probe.target.vis, probe.target.needs);
    const denial = spectatorRefused && !ok ? 'either' : (probe.denial ?? 'either');
    if (!ok && typeof denial === 'object' && !errorIs(denial.status, denial.code)) fail(`expected refusal ${denial.status} ${denial.code} (${probe.target.vis}, needs ${probe.target.needs})`);
    if (!ok && denial === 'quiet' && res.status !== 200) fail('expected a success showing nothing');
    if (!ok && denial === 'either' && res.status !== 200 && res.json.result !== 'error') fail('expected success or an error in the API shape');
    if (ok && probe.grant && res.status !== 200) fail(`expected success (${probe.target.vis}, ${probe.target.needs})`);
  }
  const text = `${res.text}\n${JSON.stringify(res.headers)}`;
  for (const l of findLeaks(fx, viewer ?? 'nobody', text, `${probe.path} ${JSON.stringify(probe.params ?? {})}`)) {
    problems.push(`${label}: LEAK of ${l.what} in the response: …${l.where}…`);
  }
  if (viewer !== null) note(viewer, text);
  return problems;
}

function note(viewer: Viewer, text: string): void {
  const lower = text.toLowerCase();
  const set = seen.get(viewer) ?? new Set<string>();
  for (const m of fx.markers) if (lower.includes(m.text)) set.add(m.text);
  seen.set(viewer, set);
}

async function drainAll(route: string): Promise<string[]> {
  const problems: string[] = [];
  await Promise.all(
    QUEUE_CALLERS.map(async (c) => {
      let events: unknown[];
      try {
        events = await fx.drain(c);
      } catch (e) {
        problems.push(`${route}: the event queue of ${c} failed: ${(e as Error).message}`);
        await fx.registerQueue(c);
        return;
      }
      const viewer: Viewer = c === 'otherOrgHome' ? 'nobody' : c;
      stats.events += events.length;
      for (const ev of events) {
        const text = JSON.stringify(ev);
        for (const l of findLeaks(fx, viewer, text)) problems.push(`${route}: LEAK of ${l.what} in an event to ${c}: …${l.where}…`);
        note(viewer, text);
      }
    }),
  );
  return problems;
}

async function runRoute(route: Route, entry: Entry): Promise<string[]> {
  const problems: string[] = [];
  for (const c of CALLERS) {
    const probes = await entry.probes(fx, c);
    stats.probes += probes.length;
    for (const probe of probes) {
      const o = probe.body ? { body: probe.body.body, contentType: probe.body.contentType } : {};
      const res = await fx.request(c, route.method, probe.path, probe.params ?? {}, o);
      problems.push(...judge(route, c, probe, res));
      if (res.status === 200) await entry.cleanup?.(fx, c, res);
    }
    await entry.after?.(fx, c);
  }
  problems.push(...(await drainAll(route.key)));
  return problems;
}

matrix('no route answers or announces what a caller may not see', async () => {
  const started = Date.now();
  // Routes that move or remove what they aim at run last, so the others find the fixture intact.
  const ordered = [...ROUTES].sort((a, b) => Number(MATRIX[a.key]?.destructive ?? false) - Number(MATRIX[b.key]?.destructive ?? false));
  const problems = await drainAll('seeding the fixture');
  const timing: Array<[string, number]> = [];
  for (const route of ordered) {
    const entry = MATRIX[route.key];
    const t = Date.now();
    if (entry) problems.push(...(await runRoute(route, entry)));
    timing.push([route.key, Date.now() - t]);
  }
  // Printed for whoever runs the file directly (the runner shows it only on failure).
  const slowest = timing.sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, ms]) => `${k} ${ms} ms`);
  process.stdout.write(
    `\n${ROUTES.length} routes × ${CALLERS.length} callers × ${VISIBILITIES.length} visibilities: ${stats.probes} requests, ${stats.events} events checked in ${Date.now() - started} ms; slowest: ${slowest.join(', ')}\n`,
  );
  if (problems.length > 0) assert.unreachable(`${problems.length} problems:\n${problems.slice(0, 200).join('\n')}`);
});

matrix('the probes reach the data (the matrix can fail)', () => {
  const saw = (v: Viewer, text: string) => assert.ok(seen.get(v)?.has(text), `${v} never saw ${text}`);
  saw('member', 'zqpublicedit');
  saw('member', 'zqpublicmsg');
  saw('member', 'zqprotectedname');
  saw('guest', 'zqsharededit');
  saw('guest', 'zqsharedfile');
  saw('admin', 'zqprotectedname');
  saw('member', 'zqarchivededit');
  saw('owner', 'zqhiddenstatus');
  saw('member', 'zqhiddenname');
  saw('anonymous', 'zqwebpublicname');
  saw('anonymous', 'zqwebpublicedit');
  assert.ok(stats.events > 0);
});

matrix.run();
