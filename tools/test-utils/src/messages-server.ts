import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A content block of an answer, as the Messages API returns it. */
export type MessagesBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** One scripted answer: a message (sent as JSON, or as server-sent events when the request streams), or an error. */
export interface MessagesReply {
  status?: number;
  headers?: Record<string, string>;
  /** The answer's blocks (status 200). */
  content?: MessagesBlock[];
  usage?: MessagesUsage;
  stopReason?: string;
  /** An error body `{ type: 'error', error: { type, message } }` (status ≥ 400). */
  error?: { type: string; message: string };
}

export interface MessagesRequest {
  url: string;
  headers: IncomingMessage['headers'];
  body: {
    model?: string;
    max_tokens?: number;
    stream?: boolean;
    system?: Array<Record<string, unknown>>;
    messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    tools?: Array<Record<string, unknown>>;
    tool_choice?: Record<string, unknown>;
    thinking?: Record<string, unknown>;
    [key: string]: unknown;
  };
}

export type MessagesScript = MessagesReply | ((request: MessagesRequest, index: number) => MessagesReply);

export interface MessagesServer {
  /** Base URL for the Anthropic client (`http://127.0.0.1:PORT`; the SDK adds `/v1/messages`). */
  url: string;
  requests: MessagesRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (random port) that speaks Anthropic's Messages API (`POST /v1/messages`)
 * from a script: the n-th request gets the n-th reply (a function reply is asked every time), as one JSON
 * message or, when the request says `stream: true`, as the API's event stream (message_start,
 * content_block_start/delta/stop with text, thinking, signature and input_json deltas, message_delta,
 * message_stop). Past the end of the script, a 500 that says so.
 */
export async function startMessagesServer(script: readonly MessagesScript[] | ((request: MessagesRequest, index: number) => MessagesReply)): Promise<MessagesServer> {
  const requests: MessagesRequest[] = [];
  let ids = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: MessagesRequest = { url: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : { messages: [] } };
      const index = requests.length;
      requests.push(request);
      if (req.method !== 'POST' || !request.url.startsWith('/v1/messages')) return sendJson(res, 404, {}, { type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${request.url}` } });
      const entry = typeof script === 'function' ? script : script[index];
      const reply: MessagesReply =
        entry === undefined ? { status: 500, error: { type: 'api_error', message: `script exhausted at request ${index + 1}` } } : typeof entry === 'function' ? entry(request, index) : entry;
      const status = reply.status ?? 200;
      if (status >= 400) return sendJson(res, status, reply.headers ?? {}, { type: 'error', error: reply.error ?? { type: 'api_error', message: `status ${status}` } });
      ids += 1;
      const message = {
        id: `msg_${ids}`,
        type: 'message',
        role: 'assistant',
        model: request.body.model ?? 'scripted',
        content: reply.content ?? [],
        stop_reason: reply.stopReason ?? ((reply.content ?? []).some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...(reply.usage ?? { input_tokens: 100, output_tokens: 20 }) },
      };
      if (request.body.stream) streamMessage(res, reply.headers ?? {}, message);
      else sendJson(res, 200, reply.headers ?? {}, message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${Date.now()}`, ...headers });
  res.end(JSON.stringify(body));
}

/** The message as the API streams it, each text split in two deltas so that assembling is exercised. */
function streamMessage(res: ServerResponse, headers: Record<string, string>, message: { content: MessagesBlock[]; usage: MessagesUsage; stop_reason: string } & Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  const send = (event: string, data: unknown): void => void res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const halves = (text: string): string[] => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))].filter((part) => part.length > 0);
  send('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } });
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const part of halves(block.text)) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } });
    } else if (block.type === 'thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const part of halves(block.thinking)) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: part } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'redacted_thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: block });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const part of halves(JSON.stringify(block.input))) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

let toolIds = 0;
/** A tool_use block with a fresh id. */
export function toolUse(name: string, input: Record<string, unknown>): MessagesBlock {
  toolIds += 1;
  return { type: 'tool_use', id: `toolu_${toolIds.toString().padStart(4, '0')}`, name, input };
}
