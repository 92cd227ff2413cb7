// The client configuration file (INI, section [api]) that client libraries read.
import { writeFileSync, chmodSync } from 'node:fs';

export function writeClientConfig(path: string, c: { email: string; key: string; site: string }): void {
  const text = `[api]\nemail=${c.email}\nkey=${c.key}\nsite=${c.site}\n`;
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its mode on write
}
