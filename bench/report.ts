// What a scenario measured, and how it is printed and written into BENCHMARKS.md.

export interface Measurement {
  /** What was measured, e.g. "R1 bare uWS" or "Parley". */
  readonly who: string;
  /** Throughput (per second), or null where the scenario measures a time. */
  readonly rate: number | null;
  readonly rateUnit: string;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
  /** Scenario-specific figures (memory per request, counts, …). */
  readonly extra: Readonly<Record<string, string>>;
}

export interface Comparison {
  readonly scenario: string;
  /** The case within the scenario (e.g. "direct", "N=1000"). */
  readonly variant: string;
  readonly reference: Measurement;
  readonly parley: Measurement;
  /** Parley ÷ reference of the figure the target is about, and what that figure is. */
  readonly ratio: number;
  readonly ratioOf: string;
  readonly target: string;
  readonly met: boolean;
  readonly notes: readonly string[];
}

/** A measurement of a process's cost and scenario-specific figures, with no rate or latency. */
export function usageOnly(who: string, usage: { readonly cpuSeconds: number; readonly peakRssBytes: number }, extra: Readonly<Record<string, string>>): Measurement {
  return { who, rate: null, rateUnit: '', p50Ms: null, p99Ms: null, cpuSeconds: usage.cpuSeconds, peakRssBytes: usage.peakRssBytes, extra };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function latencyStats(values: readonly number[]): { p50: number; p99: number } {
  const s = [...values].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
}

const fmt = (n: number | null, digits = 1) => (n === null || Number.isNaN(n) ? '–' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits));
const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;

function line(m: Measurement): string {
  const rate = m.rate === null ? '' : `${fmt(m.rate)} ${m.rateUnit}  `;
  const lat = m.p50Ms === null ? '' : `p50 ${fmt(m.p50Ms, 2)} ms  p99 ${fmt(m.p99Ms, 2)} ms  `;
  const extra = Object.entries(m.extra)
    .map(([k, v]) => `${k} ${v}`)
    .join('  ');
  return `${m.who.padEnd(22)} ${rate}${lat}cpu ${m.cpuSeconds.toFixed(2)} s  peak RSS ${mb(m.peakRssBytes)}${extra ? '  ' + extra : ''}`;
}

/**
 * A ratio as printed: three decimals below 10, so that one just under its bound does not read as
 * the bound itself (a typing run at 0.3978 × R1 printed as a missed 0.40).
 */
export function ratioText(r: number): string {
  return r.toFixed(r < 10 ? 3 : 2);
}

/** The console form of one comparison. */
export function describe(c: Comparison): string {
  return [
    `── ${c.scenario} ${c.variant}`,
    `  ${line(c.reference)}`,
    `  ${line(c.parley)}`,
    `  ratio (${c.ratioOf}): ${ratioText(c.ratio)}   target: ${c.target}   ${c.met ? 'MET' : 'MISSED'}`,
    ...c.notes.map((n) => `  note: ${n}`),
  ].join('\n');
}

const cell = (m: Measurement) =>
  [
    m.rate === null ? '' : `${fmt(m.rate)} ${m.rateUnit}`,
    m.p50Ms === null ? '' : `p50 ${fmt(m.p50Ms, 2)} / p99 ${fmt(m.p99Ms, 2)} ms`,
    `${m.cpuSeconds.toFixed(1)} s CPU`,
    `${mb(m.peakRssBytes)} peak`,
    ...Object.entries(m.extra).map(([k, v]) => `${k} ${v}`),
  ]
    .filter((s) => s.length > 0)
    .join('<br>');

/** The Markdown table of every comparison. */
export function markdownTable(cs: readonly Comparison[]): string {
  const rows = cs.map(
    (c) =>
      `| ${c.scenario} ${c.variant} | ${c.reference.who}: ${cell(c.reference)} | ${cell(c.parley)} | ${ratioText(c.ratio)} (${c.ratioOf}) | ${c.target} | ${c.met ? '**met**' : '**missed**'} |`,
  );
  return ['| scenario | reference | Parley | ratio | target | |', '|---|---|---|---|---|---|', ...rows].join('\n');
}
