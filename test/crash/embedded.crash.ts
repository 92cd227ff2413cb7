// `npm run test:crash` on the embedded database (PGlite in the server's DATA_DIR).
import { crashSuite } from './scenario.js';

crashSuite('embedded');
