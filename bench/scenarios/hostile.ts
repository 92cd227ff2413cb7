// hostile: how much longer the Markdown renderer takes on inputs built to make a parser backtrack
// or nest without end than on ordinary text of the same size. Reference: that ordinary text,
// rendered in the same process right before. Measured in-process: this is the renderer's cost,
// not the server's (a message's rendering runs inside its send or edit).
import { renderMarkdown } from '../../src/domain/markdown/index.js';
import { hostileContext, hostileInputs } from '../../test/helpers/hostile-markdown.js';
import { latencyStats, type Comparison, type Measurement } from '../report.js';
import type { Context } from './common.js';

const ORDINARY_UNIT = 'Hi @**x**, see #**c>lunch** #12 :smile: 👍 **b** `c` https://example.com\n> q\n- l\n\n';
/** A hostile input may cost this many times ordinary text of its size. */
const TARGET_RATIO = 10;

interface Timing {
  readonly perRenderMs: number[];
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
}

/** Render `text` repeatedly for at least `budgetMs`; per-render times in ms. */
function time(text: string, budgetMs: number, minRuns: number): Timing {
  const cpu = process.cpuUsage();
  let peak = process.memoryUsage().rss;
  const perRenderMs: number[] = [];
  const started = performance.now();
  while (perRenderMs.length < minRuns || performance.now() - started < budgetMs) {
    const t = performance.now();
    renderMarkdown(text, hostileContext);
    perRenderMs.push(performance.now() - t);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const used = process.cpuUsage(cpu);
  return { perRenderMs, cpuSeconds: (used.user + used.system) / 1e6, peakRssBytes: peak };
}

function measurement(who: string, timings: readonly Timing[], extra: Record<string, string>): Measurement {
  const all = timings.flatMap((t) => t.perRenderMs);
  const { p50, p99 } = latencyStats(all);
  return {
    who,
    rate: null,
    rateUnit: 'renders/s',
    p50Ms: p50,
    p99Ms: p99,
    cpuSeconds: timings.reduce((s, t) => s + t.cpuSeconds, 0),
    peakRssBytes: Math.max(...timings.map((t) => t.peakRssBytes)),
    extra,
  };
}

const median = (xs: readonly number[]) => latencyStats(xs).p50;

export async function hostile(ctx: Context): Promise<Comparison[]> {
  const smoke = ctx.options.smoke;
  const budgetMs = smoke ? 5 : 200;
  const minRuns = smoke ? 1 : 5;
  // Warm the renderer as a running server is warm: V8's first few runs say nothing of an input.
  for (let i = 0; i < (smoke ? 1 : 20); i++) renderMarkdown(ORDINARY_UNIT.repeat(100), hostileContext);

  const references: Timing[] = [];
  const hostiles: Timing[] = [];
  const ratios: Array<{ label: string; ratio: number; ms: number }> = [];
  for (const [i, [label, input]] of hostileInputs.entries()) {
    ctx.progress(`hostile ${i + 1}/${hostileInputs.length}: ${label}`);
    const ordinary = ORDINARY_UNIT.repeat(Math.ceil(input.length / ORDINARY_UNIT.length)).slice(0, Math.max(input.length, 1));
    const ref = time(ordinary, budgetMs, minRuns);
    const bad = time(input, budgetMs, minRuns);
    references.push(ref);
    hostiles.push(bad);
    // Tiny inputs cost microseconds either way: compare against at least a 0.05 ms floor so
    // timer noise on a 20-character string is not reported as a 10× slowdown.
    const refMs = Math.max(median(ref.perRenderMs), 0.05);
    const badMs = median(bad.perRenderMs);
    ratios.push({ label, ratio: badMs / refMs, ms: badMs });
  }
  ratios.sort((a, b) => b.ratio - a.ratio);
  const worst = ratios[0]!;
  const top = ratios.slice(0, 3).map((r) => `${r.label}: ${r.ratio.toFixed(1)}× (${r.ms.toFixed(2)} ms)`);
  return [
    {
      scenario: 'hostile',
      variant: `${hostileInputs.length} Markdown inputs`,
      reference: measurement('ordinary text, same size', references, {}),
      parley: measurement('hostile input', hostiles, { 'worst input': worst.label }),
      ratio: worst.ratio,
      ratioOf: 'worst median render time, hostile ÷ ordinary of the same size',
      target: `every hostile input ≤ ${TARGET_RATIO} × ordinary text of its size`,
      met: worst.ratio <= TARGET_RATIO,
      notes: [`slowest: ${top.join('; ')}`],
    },
  ];
}
