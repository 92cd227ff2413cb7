// What this server reports about itself (Versioning 2).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './paths.js';

/** All API features introduced before this level are supported. */
export const SERVICE_FEATURE_LEVEL = 496;

export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }
).version;

/** Parley is not a fork of another server: its merge base is its own version. */
export const SERVICE_MERGE_BASE = SERVICE_VERSION;
