import * as http from 'http';
import type { AddressInfo } from 'net';

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A local HTTP server with a handler per path; it keeps every request it got (path and headers). */
export async function webServer(routes: Record<string, Route>): Promise<{ port: number; seen: Array<{ path: string; headers: http.IncomingHttpHeaders }>; close(): Promise<void> }> {
  const seen: Array<{ path: string; headers: http.IncomingHttpHeaders }> = [];
  const open = new Set<import('net').Socket>();
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    const route = routes[req.url ?? ''];
    if (route) route(req, res);
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
