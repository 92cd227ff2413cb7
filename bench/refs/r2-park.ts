// R2: a bare uWebSockets.js server that parks every GET and answers all of them at once when
// told (POST /fire): the memory of a parked request and the time to answer N of them, with
// nothing of Parley in between. GET /count says how many are parked.
import * as uWS from 'uWebSockets.js';
import { announcePort } from './announce.js';

const BODY = '{"result":"success","msg":"","events":[]}';
let parked = new Set<uWS.HttpResponse>();

uWS
  .App()
  .get('/count', (res) => {
    res.end(String(parked.size));
  })
  .post('/fire', (res) => {
    const batch = parked;
    parked = new Set();
    for (const r of batch) r.cork(() => r.writeHeader('content-type', 'application/json').end(BODY));
    res.end(String(batch.size));
  })
  .get('/*', (res) => {
    parked.add(res);
    res.onAborted(() => parked.delete(res));
  })
  .listen('127.0.0.1', 0, (socket) => announcePort(socket));
