#!/usr/bin/env node
/**
 * A trivial HTTP server for the listing benchmark, run as its own process. First it is a
 * recording proxy in front of the sandbox (`UPSTREAM`): it forwards every request, counts it and
 * keeps the response with the sandbox's origin rewritten to its own. On the message `replay` it
 * serves what it recorded from memory, by path and query, so that the client's own cost can be
 * measured without the server's. Messages to the parent: `{ port }` once listening,
 * `{ requests, urls }` after `stats`.
 */
import { createServer, request as httpRequest } from 'node:http';

const upstream = new URL(process.env.UPSTREAM);
const recorded = new Map();
const urls = [];
let replaying = false;
let requests = 0;
let origin = '';

const server = createServer((req, res) => {
  requests++;
  if (replaying) {
    const hit = recorded.get(req.url);
    if (!hit) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not recorded: ${req.url}\n`);
      return;
    }
    res.writeHead(hit.status, hit.headers).end(hit.body);
    return;
  }
  const up = httpRequest(
    { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
    (upRes) => {
      const chunks = [];
      upRes.on('data', (c) => chunks.push(c));
      upRes.on('end', () => {
        const body = Buffer.from(Buffer.concat(chunks).toString('utf8').replaceAll(upstream.origin, origin));
        const headers = { 'content-type': upRes.headers['content-type'] ?? 'application/json', 'content-length': body.length };
        for (const [k, v] of Object.entries(upRes.headers)) if (k.startsWith('x-ratelimit')) headers[k] = v;
        recorded.set(req.url, { status: upRes.statusCode, headers, body });
        urls.push(req.url);
        res.writeHead(upRes.statusCode, headers).end(body);
      });
    },
  );
  up.on('error', (err) => res.writeHead(502).end(String(err)));
  req.pipe(up);
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  origin = `http://127.0.0.1:${server.address().port}`;
  process.send({ port: server.address().port });
});
process.on('message', (m) => {
  if (m === 'replay') {
    replaying = true;
    requests = 0;
    process.send({ replaying: true });
  } else if (m === 'stats') process.send({ requests, urls });
  else if (m === 'stop') server.close(() => process.exit(0));
});
