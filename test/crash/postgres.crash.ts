// `npm run test:crash` on Postgres: a fresh database on TEST_DATABASE_URL's (or DATABASE_URL's)
// server, dropped afterwards. Skipped, with a message, when neither is set.
import { crashSuite } from './scenario.js';

crashSuite('postgres');
