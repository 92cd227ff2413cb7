// Loading pg does not load Node's fetch implementation (undici): pg's Cloudflare Workers check read
// the lazy global Response, 30-40 ms of every start (patches/pg+8.23.1.patch).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('pg start-up');

test('pg connects over net sockets without loading undici', () => {
  const script = `
    const { Client } = require(${JSON.stringify(createRequire(import.meta.url).resolve('pg'))});
    new Client({ host: '127.0.0.1', port: 1 }).connect().catch(() => {
      console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('undici'))));
    });`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), []);
});

test.run();
