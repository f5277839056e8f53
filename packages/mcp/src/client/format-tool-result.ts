/** The parts of an MCP `tools/call` result an observation is made of. */
export interface McpToolResult {
  content?: ReadonlyArray<Record<string, unknown>>;
  structuredContent?: unknown;
  isError?: boolean;
  /** Old servers (protocol 2024-10-07) answer `{ toolResult }`. */
  toolResult?: unknown;
}

/**
 * A tool call's result as observation text: the text contents joined by newlines (as the original
 * does), other contents named in brackets (`[image image/png, 1.2 kB]`), `structuredContent` as JSON
 * when there is no content, and a result the tool flagged `isError` introduced as an error.
 */
export function formatToolResult(result: McpToolResult, remoteName: string): string {
  const parts = (result.content ?? []).map(describeContent);
  let text = parts.join('\n');
  if (parts.length === 0) {
    if (result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent, null, 2);
    else if (result.toolResult !== undefined) text = typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult, null, 2);
    else text = '(the tool returned no content)';
  }
  return result.isError === true ? `The MCP tool \`${remoteName}\` reported an error:\n${text}` : text;
}

function describeContent(item: Record<string, unknown>): string {
  switch (item.type) {
    case 'text':
      return String(item.text ?? '');
    case 'image':
    case 'audio':
      return `[${String(item.type)} ${String(item.mimeType ?? '')}, ${formatBytes(base64Bytes(item.data))}]`;
    case 'resource': {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${String(resource.uri ?? '')}${resource.mimeType ? ` (${String(resource.mimeType)})` : ''}, ${formatBytes(base64Bytes(resource.blob))}]`;
    }
    case 'resource_link':
      return `[resource link ${String(item.uri ?? '')}${item.name ? ` (${String(item.name)})` : ''}]`;
    default:
      return typeof item.text === 'string' ? item.text : `[${String(item.type ?? 'unknown')} content]`;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
