// R1: a bare uWebSockets.js server answering a small JSON body to any request (after reading its
// body): the requests-per-second ceiling of the HTTP layer Parley is built on.
import * as uWS from 'uWebSockets.js';
import { announcePort } from './announce.js';

const BODY = '{"result":"success","msg":""}';

uWS
  .App()
  .any('/*', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    res.onData((_chunk, isLast) => {
      if (!isLast || aborted) return;
      res.cork(() => res.writeHeader('content-type', 'application/json').end(BODY));
    });
  })
  .listen('127.0.0.1', 0, (socket) => announcePort(socket));
