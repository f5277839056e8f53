import type { ContentBlockParam, Message, MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { type ToolSchema } from '@debug-gym/spec';
import { parseLenientJson } from '../text-format/lenient-json.js';
import type { ChatMessage, GenerateResult, ModelToolCall, ThinkingBlock } from './types.js';

const CACHE = { type: 'ephemeral' } as const;

export interface AnthropicPrompt {
  system?: TextBlockParam[];
  messages: MessageParam[];
}

/**
 * Our messages in the Messages API layout, as the original's AnthropicLLM builds them: the system
 * prompt apart; an answer as content blocks (its thinking blocks first, unchanged, then its text, then
 * its `tool_use`); a tool result as a user `tool_result` block; empty texts left out; neighbouring turns
 * of one role joined into one message (the API alternates user and assistant).
 *
 * With `cache`, the system prompt and the last block of the conversation are marked
 * `cache_control: ephemeral`: the tools, the system prompt and the history then come from Anthropic's
 * prompt cache on the next call, whose prompt starts with this one.
 */
export function toAnthropicPrompt(messages: readonly ChatMessage[], options: { systemPromptSupport?: boolean; cache?: boolean } = {}): AnthropicPrompt {
  const system: TextBlockParam[] = [];
  const turns: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last && last.role === role) (last.content as ContentBlockParam[]).push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (options.systemPromptSupport === false) push('user', textBlocks(message.content));
        else system.push(...textBlocks(message.content));
        break;
      case 'user':
        push('user', textBlocks(message.content));
        break;
      case 'tool':
        push('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }]);
        break;
      case 'assistant':
        push('assistant', [
          ...(message.thinking ?? []).map((block): ContentBlockParam => ({ ...block })),
          ...textBlocks(message.content ?? ''),
          ...(message.toolCalls ?? []).map((call): ContentBlockParam => ({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) })),
        ]);
        break;
    }
  }
  // The API wants a user turn first (and at least one message).
  if (turns[0]?.role !== 'user') turns.unshift({ role: 'user', content: [{ type: 'text', text: 'Your answer is: ' }] });
  if (options.cache) {
    const lastSystem = system[system.length - 1];
    if (lastSystem) lastSystem.cache_control = CACHE;
    const lastTurn = turns[turns.length - 1] as MessageParam;
    const blocks = lastTurn.content as ContentBlockParam[];
    const lastBlock = blocks[blocks.length - 1] as ContentBlockParam & { cache_control?: unknown };
    if (lastBlock.type !== 'thinking' && lastBlock.type !== 'redacted_thinking') lastBlock.cache_control = CACHE;
  }
  return { ...(system.length > 0 ? { system } : {}), messages: turns };
}

/** The env's function schemas as Anthropic tools (`input_schema`). */
export function toAnthropicTools(tools: readonly ToolSchema[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description ? { description: tool.function.description } : {}),
    input_schema: { type: 'object', ...(tool.function.parameters as unknown as Record<string, unknown>) } as Tool['input_schema'],
  }));
}

/** The first tool call of a Messages API answer, its text, its reasoning and its thinking blocks (to send back). */
export function parseAnthropicMessage(message: Message): Omit<GenerateResult, 'usage' | 'costUsd'> {
  const notes: string[] = [];
  const texts: string[] = [];
  const thoughts: string[] = [];
  const thinking: ThinkingBlock[] = [];
  const calls: ModelToolCall[] = [];
  for (const block of message.content ?? []) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') {
      thoughts.push(block.thinking);
      thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') thinking.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type === 'tool_use') {
      const input = block.input;
      calls.push({ id: block.id, name: block.name, arguments: input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {} });
    }
  }
  const first = calls[0];
  if (calls.length > 1) notes.push(`The answer contained ${calls.length} tool calls; only the first one (${first?.name}) was used. Call one tool per answer.`);
  const text = texts.filter((item) => item.length > 0).join('\n\n');
  return {
    toolCall: first ?? null,
    content: text.length > 0 ? text : null,
    reasoning: thoughts.length > 0 ? thoughts.join('\n\n') : null,
    notes,
    raw: message,
    ...(thinking.length > 0 ? { thinking } : {}),
  };
}

function textBlocks(text: string): TextBlockParam[] {
  return text.length > 0 ? [{ type: 'text', text }] : [];
}

/** `tool_use.input` must be an object: arguments the model wrote as broken JSON go back repaired, or empty. */
function toolInput(call: ModelToolCall): Record<string, unknown> {
  if (typeof call.arguments !== 'string') return call.arguments;
  const parsed = parseLenientJson(call.arguments);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
