import { type EnvInfo } from '@debug-gym/spec';
import { HumanQuitError, LlmConfigError, ReplayExhaustedError } from '../errors/index.js';
import { countMessageTokens, estimateTokenCounter, loadTokenCounter } from '../llm/token-counter.js';
import { toEnvToolCall, type ChatMessage, type ModelToolCall } from '../llm/types.js';
import { EpisodeRecorder } from '../trajectory/episode-recorder.js';
import type { StopReason, TrajectoryStep } from '../trajectory/trajectory-types.js';
import { appendSummary, writeTrajectory } from '../trajectory/write-trajectory.js';
import { parseFunctionCall } from '../text-format/parse-function-call.js';
import type { AgentEnv, AgentOptions, AgentRunOptions, DebugAgent, EpisodeOutcome } from './agent-types.js';
import { FROGGY_INSTANCE_PROMPT, SIMPLE_INSTANCE_PROMPT, SIMPLE_SYSTEM_PROMPT, froggySystemPrompt, renderTemplate, simpleSystemPrompt, xmlToolCall } from './original-prompts.js';

/** The original debug-gym's current agents. */
export const ORIGINAL_AGENT_NAMES = ['froggy_agent', 'simple_agent'] as const;
export type OriginalAgentName = (typeof ORIGINAL_AGENT_NAMES)[number];

export function isOriginalAgentName(name: string): name is OriginalAgentName {
  return (ORIGINAL_AGENT_NAMES as readonly string[]).includes(name);
}

/** The original's no-call signal: the env answers it with its "No tool call was generated" observation. */
const EMPTY_TOOL_RESPONSE = 'empty_tool_response';

/**
 * `froggy_agent` (native function calling) and `simple_agent` (XML-style calls in the text), as the
 * original's `BaseAgent.run` drives them: each step the prompt is built again from the system prompt
 * (rendered with the current info), the instance prompt and every past answer and observation, cut by
 * `maxHistoryMessages` / `maxHistoryTokens` (the original's `max_history_steps_cutoff` /
 * `max_history_token_cutoff`); an answer without a call is sent to the env as `empty_tool_response`;
 * the episode stops when the env terminates or after `maxSteps` steps.
 */
export function createOriginalAgent(name: OriginalAgentName, options: AgentOptions): DebugAgent {
  if (!options?.llm) throw new LlmConfigError(`Agent '${name}' needs an llm (createOpenAIModel, createHumanModel, createReplayModel, ...).`);
  const maxSteps = options.maxSteps ?? 100;
  const simple = name === 'simple_agent';
  const systemTemplate = options.systemPrompt ?? (simple ? SIMPLE_SYSTEM_PROMPT : null);
  const instanceTemplate = options.instancePrompt ?? (simple ? SIMPLE_INSTANCE_PROMPT : FROGGY_INSTANCE_PROMPT);
  const settings: Record<string, unknown> = {
    maxSteps,
    ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.instancePrompt !== undefined ? { instancePrompt: options.instancePrompt } : {}),
    ...(options.tools ? { tools: [...options.tools] } : {}),
    ...(options.maxHistoryMessages !== undefined ? { maxHistoryMessages: options.maxHistoryMessages } : {}),
    ...(options.maxHistoryTokens !== undefined ? { maxHistoryTokens: options.maxHistoryTokens } : {}),
    ...(options.showCurrentBreakpoints ? { showCurrentBreakpoints: true } : {}),
  };
  const llm = options.llm;

  async function run(env: AgentEnv, runOptions: AgentRunOptions = {}): Promise<EpisodeOutcome> {
    const task = runOptions.task ?? 'task';
    const recorder = new EpisodeRecorder({
      task,
      ...(runOptions.taskDetails ? { taskDetails: runOptions.taskDetails } : {}),
      agent: { type: name, settings },
      llm: llm.describe(),
      modelName: llm.name,
      config: runOptions.config ?? null,
    });
    let info: EnvInfo | null = null;
    let stopReason: StopReason = 'max_steps';
    let failure: unknown;
    try {
      const resetStart = Date.now();
      const hidden = new Set<string>();
      if (options.tools && env.setHiddenTools && !runOptions.info) {
        // Tools left out of `tools` neither run nor speak, as for the other agents.
        const first = await env.reset();
        for (const tool of first.tools) if (!options.tools.includes(tool.function.name)) hidden.add(tool.function.name);
        const change = await env.setHiddenTools([...hidden]);
        info = { ...first, tools: change.tools, instructions: change.instructions };
      } else {
        info = runOptions.info ?? (await env.reset());
        if (options.tools) for (const tool of info.tools) if (!options.tools.includes(tool.function.name)) hidden.add(tool.function.name);
      }
      const tools = info.tools.filter((tool) => !hidden.has(tool.function.name));
      recorder.reset(info, resetStart, tools);
      await runOptions.onReset?.(info);
      const counter = options.maxHistoryTokens ? await loadTokenCounter(llm.tokenizer) : estimateTokenCounter;
      const maxEvalChars = options.maxEvalChars ?? (llm.contextLimit ? Math.floor(llm.contextLimit * 0.8 * 4) : Number.POSITIVE_INFINITY);
      const hasPdb = tools.some((tool) => tool.function.name === 'pdb');
      const systemFor = (current: EnvInfo): string =>
        simple
          ? renderTemplate(simpleSystemPrompt(tools, systemTemplate ?? SIMPLE_SYSTEM_PROMPT), current)
          : systemTemplate !== null
            ? renderTemplate(systemTemplate, current)
            : froggySystemPrompt(current, { pdb: hasPdb, showCurrentBreakpoints: options.showCurrentBreakpoints === true }, maxEvalChars);
      const history: ChatMessage[] = [];
      if (info.resolved) stopReason = 'already_resolved';
      for (let stepNumber = 1; stopReason !== 'already_resolved'; stepNumber += 1) {
        if (runOptions.signal?.aborted) {
          stopReason = 'aborted';
          break;
        }
        const current: EnvInfo = info;
        const head: ChatMessage[] = [
          { role: 'system', content: systemFor(current) },
          { role: 'user', content: renderTemplate(instanceTemplate, current) },
        ];
        const prompt = cutHistory(head, history, options.maxHistoryMessages, options.maxHistoryTokens, (message) => countMessageTokens(counter, message));
        const stepStart = Date.now();
        const answer = await llm.generate({ messages: prompt, tools: simple ? [] : tools, ...(runOptions.signal ? { signal: runOptions.signal } : {}) });
        const modelMs = Date.now() - stepStart;
        let content = answer.content;
        let call: ModelToolCall | null = answer.toolCall;
        const notes = [...(answer.notes ?? [])];
        if (simple && !call) {
          const parsed = parseFunctionCall(answer.content ?? '', tools);
          content = parsed.thought;
          call = parsed.call ? { id: 'None', name: parsed.call.name, arguments: parsed.call.arguments } : null;
          notes.push(...parsed.notes);
        }
        const envStart = Date.now();
        info = await env.step(call ? toEnvToolCall(call) : { id: EMPTY_TOOL_RESPONSE, name: EMPTY_TOOL_RESPONSE, arguments: {} });
        const after: EnvInfo = info;
        const observation = after.stepObservation;
        if (simple) {
          history.push({ role: 'assistant', content: call ? `${content ?? ''}\n${xmlToolCall(call.name, call.arguments)}` : (content ?? '') });
          history.push({ role: 'user', content: observation.observation });
        } else {
          history.push({ role: 'assistant', content, ...(answer.reasoning ? { reasoning: answer.reasoning } : {}), ...(call ? { toolCalls: [call] } : {}) });
          history.push(call ? { role: 'tool', toolCallId: call.id, name: call.name, content: observation.observation } : { role: 'user', content: observation.observation });
        }
        const step: TrajectoryStep = {
          step: stepNumber,
          prompt,
          response: { content, reasoning: answer.reasoning, toolCall: call, ...(notes.length ? { notes } : {}), ...(answer.raw === undefined || options.recordRaw === false ? {} : { raw: answer.raw }) },
          toolCall: call ? toEnvToolCall(call) : null,
          observation: { source: observation.source, text: observation.observation, ...(observation.raw !== undefined && observation.raw !== observation.observation ? { raw: observation.raw } : {}) },
          usage: answer.usage,
          costUsd: answer.costUsd ?? null,
          timing: { startedAt: new Date(stepStart).toISOString(), modelMs, envMs: Date.now() - envStart },
          state: { score: after.score, maxScore: after.maxScore, resolved: after.resolved, terminated: after.terminated, rewriteCount: after.rewriteCount, breakpoints: after.currentBreakpoints },
          ...(after.launches?.length ? { launches: after.launches } : {}),
        };
        recorder.step(step);
        await runOptions.onStep?.(step, after);
        // `BaseAgent.should_stop`: the env terminated (resolved, submitted), or max_steps reached.
        if (after.terminated) {
          stopReason = after.terminationReason ?? (after.resolved ? 'resolved' : 'submitted');
          break;
        }
        if (stepNumber >= maxSteps) break;
      }
    } catch (error) {
      if (ReplayExhaustedError.isInstance(error)) stopReason = 'replay_exhausted';
      else if (HumanQuitError.isInstance(error) || runOptions.signal?.aborted) stopReason = 'aborted';
      else {
        const code = (error as { code?: unknown })?.code;
        stopReason = info !== null && typeof code === 'string' && code.startsWith('DG_LLM_') ? 'llm_error' : 'fatal_error';
        failure = error;
      }
    }
    const result = recorder.finish(info, stopReason, failure);
    const trajectory = recorder.trajectory;
    if (runOptions.outputDir) {
      const trajectoryPath = await writeTrajectory(runOptions.outputDir, trajectory, { knownSecrets: runOptions.knownSecrets ?? [] });
      await appendSummary(runOptions.outputDir, result, { trajectory: trajectoryPath });
      return { result, trajectory, trajectoryPath };
    }
    return { result, trajectory };
  }

  return { name, tools: options.tools ?? ORIGINAL_AGENT_TOOLS, settings, llm, run };
}

/** The tools the env loads for these agents unless the config lists its own (the original's mini_nightmare config). */
export const ORIGINAL_AGENT_TOOLS: readonly string[] = ['bash', 'view', 'pdb', 'rewrite', 'eval'];

/**
 * `BaseAgent.build_prompt`'s cut-offs: at most `maxMessages` history messages after the first two, then,
 * newest first, as many as fit `maxTokens` minus the first two. A history that would start with a tool
 * result whose call was cut off loses that result too (chat APIs refuse an orphan tool message).
 */
export function cutHistory(
  head: ChatMessage[],
  history: readonly ChatMessage[],
  maxMessages: number | undefined,
  maxTokens: number | undefined,
  count: (message: ChatMessage) => number,
): ChatMessage[] {
  let kept = maxMessages !== undefined && maxMessages > 0 && history.length > maxMessages ? history.slice(history.length - maxMessages) : [...history];
  if (maxTokens !== undefined && maxTokens > 0) {
    let available = maxTokens - head.reduce((sum, message) => sum + count(message), 0);
    const fitting: ChatMessage[] = [];
    for (let index = kept.length - 1; index >= 0; index -= 1) {
      const cost = count(kept[index] as ChatMessage);
      if (cost > available) break;
      available -= cost;
      fitting.unshift(kept[index] as ChatMessage);
    }
    kept = fitting;
  }
  while (kept[0]?.role === 'tool') kept = kept.slice(1);
  return [...head, ...kept];
}
