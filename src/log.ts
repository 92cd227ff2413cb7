// Structured JSON logs (pino) on stdout; the Authorization header is never logged because
// dispatch logs only method, path, status, duration and user id.
import { pino, type Logger } from 'pino';

export function createLogger(level: string, name = 'parley'): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid },
    redact: { paths: ['headers.authorization', '*.headers.authorization', 'password', 'api_key'], censor: '[redacted]' },
    serializers: { err: pino.stdSerializers.err },
  });
}
