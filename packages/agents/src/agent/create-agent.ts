import { type EnvInfo, type HiddenToolsChange } from '@debug-gym/spec';
import { ContextLengthExceededError, HumanQuitError, LlmConfigError, ReplayExhaustedError } from '../errors/index.js';
import { estimateTokenCounter, loadTokenCounter, type TokenCounter } from '../llm/token-counter.js';
import { toEnvToolCall, type ChatMessage, type GenerateResult } from '../llm/types.js';
import { EpisodeRecorder } from '../trajectory/episode-recorder.js';
import type { StopReason, TrajectoryStep } from '../trajectory/trajectory-types.js';
import { appendSummary, writeTrajectory } from '../trajectory/write-trajectory.js';
import { AGENT_PRESETS, isAgentName, type AgentName } from './agent-presets.js';
import { noToolCallNote, taskMessage, unknownToolNote } from './build-prompt.js';
import { createOriginalAgent, isOriginalAgentName } from './original-agents.js';
import { trimHistory } from './trim-history.js';
import { filterInstructions, visibleTools } from './visible-tools.js';
import type { AgentOptions, AgentRunOptions, DebugAgent, EpisodeOutcome, AgentEnv } from './agent-types.js';

const CONTEXT_RETRIES = 3;
const SHRINK = 0.8;

/** An agent by its debug-gym name: `debug_agent`, `rewrite_agent`, `debug_5_agent`, `froggy_agent` or `simple_agent`. */
export function createAgent(name: AgentName, options: AgentOptions): DebugAgent {
  if (!isAgentName(name)) throw new LlmConfigError(`Unknown agent '${String(name)}'. Agents: debug_agent, rewrite_agent, debug_5_agent, froggy_agent, simple_agent.`);
  if (isOriginalAgentName(name)) return createOriginalAgent(name, options);
  if (!options?.llm) throw new LlmConfigError(`Agent '${name}' needs an llm (createOpenAIModel, createHumanModel, createReplayModel, ...).`);
  const preset = AGENT_PRESETS[name];
  const maxSteps = options.maxSteps ?? 100;
  const nRewritesBeforePdb = options.nRewritesBeforePdb ?? 5;
  const systemPrompt = options.systemPrompt ?? preset.systemPrompt;
  const settings = {
    maxSteps,
    ...(preset.pdbAfterRewrites ? { nRewritesBeforePdb } : {}),
    systemPrompt,
    tools: [...(options.tools ?? preset.tools)],
    ...(options.maxHistorySteps === undefined ? {} : { maxHistorySteps: options.maxHistorySteps }),
  };
  async function run(env: AgentEnv, runOptions: AgentRunOptions = {}): Promise<EpisodeOutcome> {
    /** Tools of the env that `options.tools` leaves out (known once the env was reset). */
    const notOffered = new Set<string>();
    const hiddenAt = (info: EnvInfo): Set<string> => {
      const hidden = new Set([...preset.hiddenTools, ...notOffered]);
      if (options.tools) for (const tool of info.tools) if (!options.tools.includes(tool.function.name)) hidden.add(tool.function.name);
      if (preset.pdbAfterRewrites && info.rewriteCount < nRewritesBeforePdb) hidden.add('pdb');
      return hidden;
    };
    // The env is told too, so a hidden tool neither runs nor speaks (pdb would start and restart after every rewrite).
    let hiddenInEnv: string | null = null;
    const hideInEnv = async (hidden: ReadonlySet<string>): Promise<HiddenToolsChange | null> => {
      const key = [...hidden].sort().join('\n');
      if (!env.setHiddenTools || key === hiddenInEnv) return null;
      hiddenInEnv = key;
      return env.setHiddenTools([...hidden]);
    };
    const llm = options.llm;
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
      if (!runOptions.info) await hideInEnv(new Set([...preset.hiddenTools, ...(preset.pdbAfterRewrites ? ['pdb'] : [])]));
      info = runOptions.info ?? (await env.reset());
      for (const tool of info.tools) if (options.tools && !options.tools.includes(tool.function.name)) notOffered.add(tool.function.name);
      info = withTools(info, await hideInEnv(hiddenAt(info)));
      recorder.reset(info, resetStart, visibleTools(info.tools, hiddenAt(info)));
      await runOptions.onReset?.(info);
      const reset = info;
      if (reset.resolved) stopReason = 'already_resolved';
      const counter: TokenCounter = llm.contextLimit ? await loadTokenCounter(llm.tokenizer) : estimateTokenCounter;
      const toolNames = new Set(reset.tools.map((tool) => tool.function.name));
      let instructionsText = reset.instructions;
      const turns: ChatMessage[][] = [];
      let budget = llm.contextLimit ? llm.contextLimit - (llm.maxOutputTokens ?? Math.min(4096, Math.floor(llm.contextLimit / 10))) : undefined;
      let headKey = '';
      let head: ChatMessage[] = [];
      for (let stepNumber = 1; stepNumber <= maxSteps && !reset.resolved; stepNumber += 1) {
        if (runOptions.signal?.aborted) {
          stopReason = 'aborted';
          break;
        }
        const hidden = hiddenAt(info as EnvInfo);
        // A tool shown again (debug_5_agent's pdb) starts now; the env's tools and instructions then include it.
        const change = await hideInEnv(hidden);
        if (change) {
          info = withTools(info as EnvInfo, change);
          instructionsText = change.instructions;
          for (const tool of change.tools) toolNames.add(tool.function.name);
        }
        const current: EnvInfo = info as EnvInfo;
        const tools = visibleTools(current.tools, hidden);
        const names = tools.map((tool) => tool.function.name);
        if (names.join() !== headKey) {
          headKey = names.join();
          const instructions = filterInstructions(instructionsText, hidden, toolNames);
          head = [{ role: 'system', content: systemPrompt }, taskMessage({ instructions, reset, maxEvalChars: options.maxEvalChars ?? 8000 })];
        }
        const toolTokens = budget === undefined ? 0 : counter.count(JSON.stringify(tools));
        const stepStart = Date.now();
        let prompt: ChatMessage[] = [];
        let answer: GenerateResult | undefined;
        for (let attempt = 0; ; attempt += 1) {
          const trimmed = trimHistory({ head, turns, budget: budget === undefined ? undefined : budget - toolTokens, counter, maxTurns: options.maxHistorySteps });
          prompt = trimmed.messages;
          try {
            answer = await llm.generate({ messages: prompt, tools, sessionId: task, ...(runOptions.signal ? { signal: runOptions.signal } : {}) });
            break;
          } catch (error) {
            if (!ContextLengthExceededError.isInstance(error) || attempt >= CONTEXT_RETRIES || turns.length === 0) throw error;
            budget = Math.floor((budget === undefined ? trimmed.tokens + toolTokens : Math.min(budget, trimmed.tokens + toolTokens)) * SHRINK);
          }
        }
        const modelMs = Date.now() - stepStart;
        const call = answer.toolCall;
        const assistant: ChatMessage = {
          role: 'assistant',
          content: answer.content,
          ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
          ...(call ? { toolCalls: [call] } : {}),
          ...(answer.thinking?.length ? { thinking: answer.thinking } : {}),
        };
        let observation: TrajectoryStep['observation'];
        let reply: ChatMessage;
        let launches: EnvInfo['launches'] = [];
        const envStart = Date.now();
        if (!call) {
          observation = { source: 'agent', text: noToolCallNote(answer.notes, names) };
          reply = { role: 'user', content: observation.text };
        } else if (hidden.has(call.name)) {
          observation = { source: 'env', text: unknownToolNote(call.name, names) };
          reply = { role: 'tool', toolCallId: call.id, name: call.name, content: observation.text };
        } else {
          info = await env.step(toEnvToolCall(call));
          launches = info.launches ?? [];
          const seen = info.stepObservation;
          const notes = (answer.notes ?? []).map((note) => `\n\n(${note})`).join('');
          observation = { source: seen.source, text: seen.observation + notes, ...(seen.raw !== undefined && seen.raw !== seen.observation ? { raw: seen.raw } : {}) };
          reply = { role: 'tool', toolCallId: call.id, name: call.name, content: observation.text };
        }
        turns.push([assistant, reply]);
        const after = info as EnvInfo;
        const step: TrajectoryStep = {
          step: stepNumber,
          prompt,
          response: {
            content: answer.content,
            reasoning: answer.reasoning,
            toolCall: call,
            ...(answer.notes?.length ? { notes: answer.notes } : {}),
            ...(answer.raw === undefined || options.recordRaw === false ? {} : { raw: answer.raw }),
            ...(answer.thinking?.length ? { thinking: answer.thinking } : {}),
          },
          toolCall: call && !hidden.has(call.name) ? toEnvToolCall(call) : null,
          observation,
          usage: answer.usage,
          costUsd: answer.costUsd ?? null,
          timing: { startedAt: new Date(stepStart).toISOString(), modelMs, envMs: Date.now() - envStart },
          state: { score: after.score, maxScore: after.maxScore, resolved: after.resolved, terminated: after.terminated, rewriteCount: after.rewriteCount, breakpoints: after.currentBreakpoints },
          ...(launches.length ? { launches } : {}),
          ...(answer.tokens ? { tokens: answer.tokens } : {}),
        };
        recorder.step(step);
        await runOptions.onStep?.(step, after);
        if (after.terminated) {
          stopReason = after.terminationReason ?? 'submitted';
          break;
        }
      }
    } catch (error) {
      if (ReplayExhaustedError.isInstance(error)) stopReason = 'replay_exhausted';
      else if (HumanQuitError.isInstance(error) || runOptions.signal?.aborted) stopReason = 'aborted';
      else {
        stopReason = info === null ? 'fatal_error' : 'llm_error';
        failure = error;
      }
    }
    if (stopReason === 'llm_error' && failure !== undefined && !isModelError(failure)) stopReason = 'fatal_error';
    const result = recorder.finish(info, stopReason, failure);
    const trajectory = recorder.trajectory;
    if (runOptions.outputDir) {
      const trajectoryPath = await writeTrajectory(runOptions.outputDir, trajectory, { knownSecrets: runOptions.knownSecrets ?? [] });
      await appendSummary(runOptions.outputDir, result, { trajectory: trajectoryPath });
      return { result, trajectory, trajectoryPath };
    }
    return { result, trajectory };
  }

  return { name, tools: settings.tools, settings, llm: options.llm, run };
}

/** `info` with the tools and instructions the env reported after a change of hidden tools. */
function withTools(info: EnvInfo, change: HiddenToolsChange | null): EnvInfo {
  return change ? { ...info, tools: change.tools, instructions: change.instructions } : info;
}

function isModelError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('DG_LLM_');
}
