// The benchmark scenarios in smoke mode (tiny sizes, one-second loops), as the test suite runs
// them: each completes against a real Parley process and reports plausible figures. Timings are
// not asserted; `npm run bench` measures them.
import * as assert from 'uvu/assert';
import { runScenarios } from '../../bench/main.js';
import type { Comparison, Measurement } from '../../bench/report.js';
import type { RunOptions } from '../../bench/scenarios/common.js';
import { serverUrl } from '../helpers/database.js';

export const smokeOptions: RunOptions = {
  durationS: 1,
  warmupS: 0,
  turns: 2,
  smoke: true,
  serverUrl: serverUrl(),
  profile: {},
  concurrency: undefined,
  sizes: undefined,
  serverEnv: {},
  quiet: true,
};

export function runSmoke(scenario: string): Promise<Comparison[]> {
  return runScenarios([scenario], smokeOptions, 2);
}

function checkMeasurement(m: Measurement, where: string): void {
  assert.ok(m.cpuSeconds >= 0, `${where}: CPU seconds ${m.cpuSeconds}`);
  assert.ok(m.peakRssBytes > 10 * 2 ** 20, `${where}: peak RSS ${m.peakRssBytes}`);
  if (m.rate !== null) assert.ok(m.rate > 0, `${where}: rate ${m.rate}`);
  if (m.p50Ms !== null) {
    assert.ok(m.p50Ms > 0 && m.p99Ms! >= m.p50Ms, `${where}: p50 ${m.p50Ms} p99 ${m.p99Ms}`);
  }
}

/** Every comparison of the scenario has both sides measured and a finite positive ratio. */
export function checkComparisons(cs: readonly Comparison[], scenario: string, variants: number, o: { memoryRatio?: boolean } = {}): void {
  assert.is(cs.length, variants, `${scenario}: comparisons`);
  for (const c of cs) {
    assert.is(c.scenario, scenario);
    checkMeasurement(c.reference, `${scenario} ${c.variant} reference`);
    checkMeasurement(c.parley, `${scenario} ${c.variant} Parley`);
    // A ratio of memory deltas over a smoke run's handful of polls is noise (a collection can make
    // the delta negative or zero); only its presence is checked there.
    if (o.memoryRatio) assert.type(c.ratio, 'number', `${scenario} ${c.variant}: ratio ${c.ratio}`);
    else assert.ok(Number.isFinite(c.ratio) && c.ratio > 0, `${scenario} ${c.variant}: ratio ${c.ratio}`);
    assert.type(c.met, 'boolean');
  }
}
