// The reference servers tell the harness their port on their first line of output.
import * as uWS from 'uWebSockets.js';

export function announcePort(socket: uWS.us_listen_socket | false): void {
  if (!socket) {
    process.stderr.write('cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ port: uWS.us_socket_local_port(socket) })}\n`);
}
