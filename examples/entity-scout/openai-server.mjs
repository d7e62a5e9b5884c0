// A real local HTTP server that speaks the OpenAI chat-completions protocol (`POST /v1/chat/completions`,
// JSON or server-sent events when the request says `stream: true`). What it answers is scripted by
// `respond(request, n)`, so tests and the entity-scout demo can replay well-formed, malformed and failing
// answers: a reply, an HTTP error (429 with Retry-After, 503, …), an error event mid-stream, or a dropped
// connection.
import { createServer } from 'node:http';

/**
 * One scripted step:
 *   {content, chunkSize?, finishReason?}   a reply (streamed in `chunkSize`-character deltas when asked to stream)
 *   {toolArguments, name?, chunkSize?}     a reply that is one tool call
 *   {status, error?, headers?}              an HTTP error with an OpenAI-style error body
 *   {streamError, after?}                   a stream that sends `after` then an error event
 *   {drop: true}                            the socket is destroyed without a response
 */
export async function startOpenAIServer(respond) {
  const requests = [];
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', async () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/chat/completions' ||
        body === undefined ||
        !Array.isArray(body.messages)
      ) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { message: `bad request: ${req.method} ${req.url}`, type: 'invalid_request_error' },
          }),
        );
        return;
      }
      const request = { body, headers: req.headers, prompt: body.messages.at(-1)?.content ?? '' };
      requests.push(request);
      let step;
      try {
        step = await respond(request, requests.length - 1);
      } catch (e) {
        step = { status: 500, error: String(e) };
      }
      send(res, step, body.stream === true, body.model);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  return {
    url,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function send(res, step, stream, model) {
  if (step.drop === true) {
    res.socket.destroy();
    return;
  }
  if (step.status !== undefined) {
    res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
    res.end(
      JSON.stringify({
        error: {
          message: step.error ?? `status ${step.status}`,
          type: step.status === 429 ? 'rate_limit_exceeded' : 'server_error',
        },
      }),
    );
    return;
  }
  const id = 'chatcmpl-local';
  const created = Math.floor(Date.now() / 1000);
  const tool = step.toolArguments !== undefined;
  const text = tool ? step.toolArguments : (step.content ?? step.after ?? '');
  if (!stream) {
    const message = tool
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: step.name ?? 'answer', arguments: text } }],
        }
      : { role: 'assistant', content: text };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message, finish_reason: step.finishReason ?? (tool ? 'tool_calls' : 'stop') }],
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (delta, finish = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(': a comment line, which clients ignore\n\n');
  res.write(event({ role: 'assistant', content: '' }));
  const size = step.chunkSize ?? 7;
  for (let i = 0; i < text.length; i += size) {
    const piece = text.slice(i, i + size);
    res.write(
      event(
        tool
          ? {
              tool_calls: [
                {
                  index: 0,
                  ...(i === 0 ? { id: 'call_1', type: 'function' } : {}),
                  function: { ...(i === 0 ? { name: step.name ?? 'answer' } : {}), arguments: piece },
                },
              ],
            }
          : { content: piece },
      ),
    );
  }
  if (step.streamError !== undefined) {
    res.end(`data: ${JSON.stringify({ error: { message: step.streamError, type: 'server_error' } })}\n\n`);
    return;
  }
  res.write(event({}, step.finishReason ?? (tool ? 'tool_calls' : 'stop')));
  res.end('data: [DONE]\n\n');
}
