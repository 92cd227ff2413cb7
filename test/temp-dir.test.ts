// The tests' temporary directories go when their process exits.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const t = suite('temp dirs');

t('directories made by tempDir, and what is in them, are removed when the process exits', () => {
  const helper = new URL('./helpers/temp-dir.js', import.meta.url).href;
  const script = [
    `const { tempDir } = await import(${JSON.stringify(helper)});`,
    `const { writeFileSync } = await import('node:fs');`,
    `const full = tempDir('parley-t-');`,
    `writeFileSync(full + '/f', 'x');`,
    `console.log(JSON.stringify([full, tempDir('parley-t-')]));`,
  ].join('\n');
  const dirs = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
  assert.is(dirs.length, 2);
  assert.is.not(dirs[0], dirs[1]);
  for (const dir of dirs) assert.not.ok(existsSync(dir), `${dir} is left`);
});

t('they exist until then', async () => {
  const { tempDir } = await import('./helpers/temp-dir.js');
  const dir = tempDir('parley-t-');
  writeFileSync(join(dir, 'f'), 'x');
  assert.ok(existsSync(join(dir, 'f')));
});

t.run();
