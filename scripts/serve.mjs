// Serves the demo page: www/ at "/", plus the built package (/dist/, /pkg/) it imports. No dependencies,
// works offline. PORT picks the port (default 8080; 0 for any free port). Prints the URL when listening.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** Maps a URL path to a file: /dist/ and /pkg/ from the package build, everything else from www/. */
function resolve(pathname) {
  const clean = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  if (clean.split(sep).includes('..')) return undefined;
  const base = clean.startsWith(`dist${sep}`) || clean.startsWith(`pkg${sep}`) ? root : join(root, 'www');
  return join(base, clean === '' ? 'index.html' : clean);
}

export function startServer(port = Number(process.env.PORT ?? 8080), host = '127.0.0.1') {
  const server = createServer(async (req, res) => {
    const file = resolve(new URL(req.url ?? '/', 'http://x').pathname);
    try {
      if (!file || !(await stat(file)).isFile()) throw new Error('not found');
      res.writeHead(200, {
        'content-type': types[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      });
      res.end(await readFile(file));
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => done(server));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = await startServer();
  const { port } = server.address();
  console.log(`llm-response-sanitizer demo: http://127.0.0.1:${port}/`);
}
