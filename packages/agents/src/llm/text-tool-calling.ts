import { parseTextToolCall } from '../text-format/parse-text-tool-call.js';
import { renderTextToolCall, renderToolsAsText } from '../text-format/render-text-tools.js';
import { newCallId } from './openai-wire.js';
import type { ChatMessage, GenerateRequest, GenerateResult, LanguageModel } from './types.js';

/**
 * Adapt a model without function calling: the tools are described in the system prompt, earlier calls
 * are written back as `<function=...>` text, tool results become user messages, and the answer's text
 * is parsed for the call (see parseTextToolCall for the accepted forms).
 */
export function withTextToolCalling(model: LanguageModel): LanguageModel {
  return {
    ...model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const messages = toTextMessages(request.messages, renderToolsAsText(request.tools));
      const result = await model.generate({ ...request, messages, tools: [] });
      if (result.toolCall) return result;
      const parsed = parseTextToolCall(result.content, request.tools);
      const reasoning = [result.reasoning, parsed.reasoning].filter(Boolean).join('\n\n') || null;
      return {
        ...result,
        toolCall: parsed.toolCall ? { id: newCallId(), ...parsed.toolCall } : null,
        reasoning,
        notes: [...(result.notes ?? []).filter((note) => !note.startsWith('No tool call')), ...parsed.notes],
      };
    },
    describe: () => ({ ...model.describe(), toolCalling: 'text' }),
  };
}

/** The conversation with tool calls and results written as text. */
export function toTextMessages(messages: readonly ChatMessage[], toolText: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  let sawSystem = false;
  for (const message of messages) {
    if (message.role === 'system' && !sawSystem) {
      sawSystem = true;
      out.push({ role: 'system', content: `${message.content}\n\n${toolText}` });
    } else if (message.role === 'assistant') {
      const calls = (message.toolCalls ?? []).map(renderTextToolCall);
      out.push({ role: 'assistant', content: [message.content ?? '', ...calls].filter(Boolean).join('\n\n'), ...(message.thinking ? { thinking: message.thinking } : {}) });
    } else if (message.role === 'tool') {
      out.push({ role: 'user', content: `Output of ${message.name}:\n${message.content}` });
    } else {
      out.push(message);
    }
  }
  if (!sawSystem) out.unshift({ role: 'system', content: toolText });
  return out;
}
