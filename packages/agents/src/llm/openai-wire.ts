import { type ToolSchema } from '@debug-gym/spec';
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { parseLenientJson } from '../text-format/lenient-json.js';
import { parseTextToolCall } from '../text-format/parse-text-tool-call.js';
import type { ChatMessage, GenerateResult, ModelToolCall } from './types.js';

const MAX_ARGUMENT_BYTES = 1_000_000;

/** Our messages in the chat-completions wire format. */
export function toOpenAIMessages(messages: readonly ChatMessage[], options: { systemPromptSupport?: boolean } = {}): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return options.systemPromptSupport === false ? { role: 'user', content: message.content } : { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'tool':
        return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        return {
          role: 'assistant',
          // An assistant turn needs text or a call: an empty answer is sent back as empty text.
          content: message.content ?? (calls.length > 0 ? null : ''),
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
                })),
              }
            : {}),
        };
      }
    }
  });
}

/**
 * The first tool call of a completion, its text and reasoning. Arguments that are not valid JSON are
 * repaired when possible, else passed on as text so that the env tells the model what was wrong. With
 * no native call, a call written in the text format (`<function=...>`, JSON) is accepted.
 */
export function parseCompletion(completion: ChatCompletion, tools: readonly ToolSchema[]): Omit<GenerateResult, 'usage' | 'costUsd'> {
  const message = completion.choices[0]?.message;
  const content = message?.content ?? null;
  const extra = message as unknown as { reasoning_content?: unknown; reasoning?: unknown } | undefined;
  let reasoning = [extra?.reasoning_content, extra?.reasoning].find((item): item is string => typeof item === 'string' && item.length > 0) ?? null;
  const notes: string[] = [];
  const calls = (message?.tool_calls ?? []).filter((call) => call.type === 'function');
  const first = calls[0];
  if (calls.length > 1) notes.push(`The answer contained ${calls.length} tool calls; only the first one (${first?.function.name}) was used. Call one tool per answer.`);
  if (first && first.type === 'function') {
    return { toolCall: { id: first.id || newCallId(), name: first.function.name, arguments: parseArguments(first.function.arguments) }, content, reasoning, notes, raw: completion };
  }
  if (tools.length === 0) return { toolCall: null, content, reasoning, notes, raw: completion };
  const fallback = parseTextToolCall(content, tools);
  if (fallback.reasoning) reasoning = reasoning ? `${reasoning}\n\n${fallback.reasoning}` : fallback.reasoning;
  const toolCall: ModelToolCall | null = fallback.toolCall ? { id: newCallId(), ...fallback.toolCall } : null;
  return { toolCall, content, reasoning, notes: toolCall ? notes : [...notes, ...fallback.notes], raw: completion };
}

function parseArguments(text: string | undefined): Record<string, unknown> | string {
  if (!text || !text.trim()) return {};
  if (text.length > MAX_ARGUMENT_BYTES) return text.slice(0, 200) + '… (arguments over 1 MB were cut)';
  const parsed = parseLenientJson(text);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : text;
}

let counter = 0;
/** A tool-call id for calls the endpoint did not number (text-format calls, replays). */
export function newCallId(): string {
  counter += 1;
  return `call_${Date.now().toString(36)}_${counter}`;
}
