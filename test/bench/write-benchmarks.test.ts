// BENCHMARKS.md after `npm run bench -- all`: the run's table replaces the old one, and the records
// written by hand below it are kept, run after run.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ratioText, type Comparison, type Measurement } from '../../bench/report.js';
import { benchmarksMarkdown, withRecords, type RunInfo } from '../../bench/write-benchmarks.js';

const t = suite('BENCHMARKS.md');

const measured = (who: string, rate: number): Measurement => ({
  who,
  rate,
  rateUnit: 'req/s',
  p50Ms: 1,
  p99Ms: 2,
  cpuSeconds: 3,
  peakRssBytes: 50 * 2 ** 20,
  extra: {},
});

function run(ratio: number, notes: string[] = []): string {
  const result: Comparison = {
    scenario: 'presence',
    variant: '1000 users, 200 clients',
    reference: measured('R1 bare uWS JSON', 1000),
    parley: measured('Parley', 1000 * ratio),
    ratio,
    ratioOf: 'req/s',
    target: '≥ 0.30 × R1 req/s',
    met: ratio >= 0.3,
    notes,
  };
  const info: RunInfo = {
    date: '2026-11-28T21:00:00.000Z',
    commit: 'abc1234',
    machine: '2 × test CPU',
    database: 'Postgres',
    loadBefore: [1, 1, 1],
    loadAfter: [1, 1, 1],
    minutes: 5,
    command: 'npm run bench -- all',
  };
  return benchmarksMarkdown([result], [{ scenario: 'typing', error: 'it broke\nat line 2' }], info);
}

const RECORDS = '## Stop 2 (a session)\n\nWhat it changed, 0.40 → 0.45.\n\n## Stop 1\n\n### Tried\n\n- something\n';

t("a run's part has no `## ` heading, which is where the kept records begin", () => {
  const generated = run(0.45, ['a note']);
  assert.not.match(generated, /^## /m);
  assert.match(generated, /^- presence 1000 users, 200 clients: a note$/m);
  assert.match(generated, /^- typing: it broke$/m);
});

t('a ratio just under its bound does not print as the bound', () => {
  assert.is(ratioText(0.3978), '0.398');
  assert.is(ratioText(12.804), '12.80');
  assert.match(run(0.3978), /\| 0\.398 \(req\/s\) \|/);
});

t('a new file holds the run alone', () => {
  assert.is(withRecords(run(0.45), null), run(0.45));
});

t("the old file's table is replaced and its records are kept, run after run", () => {
  const first = withRecords(run(0.35), `${run(0.3)}\n${RECORDS}`);
  assert.ok(first.startsWith(run(0.35)), 'the new table on top');
  assert.ok(first.endsWith(RECORDS), 'the records below it');
  assert.is(first.split('## Stop 2').length, 2, 'the records once');
  assert.not.match(first, /0\.300 \(req\/s\)/, 'the old ratio is gone');
  assert.match(first, /0\.350 \(req\/s\)/, 'the new one');
  const second = withRecords(run(0.45), first);
  assert.is(second, `${run(0.45)}\n${RECORDS}`);
});

t('a file without records (an old run alone) is replaced whole', () => {
  assert.is(withRecords(run(0.45), run(0.3)), run(0.45));
});

t.run();
