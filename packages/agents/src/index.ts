export { VERSION } from './version.js';
export * from './errors/index.js';

export type { ChatMessage, GenerateRequest, GenerateResult, LanguageModel, ModelToolCall, RolloutTokens, ThinkingBlock, TokenUsage } from './llm/types.js';
export { toEnvToolCall } from './llm/types.js';
export { createOpenAIModel, createChatCompletionsModel, requestKwargs, type ChatModelOptions, type OpenAIModelOptions, type PooledClients } from './llm/openai-model.js';
export { ANTHROPIC_DEFAULT_MAX_TOKENS, createAnthropicModel, type AnthropicModelOptions } from './llm/anthropic-model.js';
export { parseAnthropicMessage, toAnthropicPrompt, toAnthropicTools, type AnthropicPrompt } from './llm/anthropic-wire.js';
export { EndpointPool, isEndpointFailure, type EndpointPoolOptions } from './llm/endpoint-pool.js';
export { rolloutTokensOf } from './llm/rollout-tokens.js';
export { findTokenizerJson, loadHfTokenCounter } from './llm/hf-tokenizer.js';
export { createAzureOpenAIModel, entraTokenProvider, type AzureOpenAIModelOptions, type AzureTokenCredential } from './llm/azure-openai-model.js';
export { createHumanModel, type HumanModelOptions } from './llm/human-model.js';
export {
  createReplayModel,
  loadReplaySource,
  replayAnswers,
  type ReplayAnswer,
  type ReplayModelOptions,
  type ReplayScript,
  type ReplaySource,
} from './llm/replay-model.js';
export { withTextToolCalling } from './llm/text-tool-calling.js';
export { backoffDelay, classifyFailure, retryAfterMs, withRetries, type RetryOptions } from './llm/retry.js';
export { countPromptTokens, estimateTokenCounter, loadTokenCounter, type TokenCounter } from './llm/token-counter.js';
export { computeCost, type PriceTable } from './llm/cost.js';

export { parseTextToolCall, type TextToolCall, type TextToolCallParse } from './text-format/parse-text-tool-call.js';
export { parseCommandLine, type CommandLineParse } from './text-format/parse-command-line.js';
export { renderTextToolCall, renderToolsAsText } from './text-format/render-text-tools.js';
export { parseLenientJson } from './text-format/lenient-json.js';

export {
  defaultLlmConfigPath,
  getLlmConfigEntry,
  loadLlmConfig,
  parseLlmConfig,
  resolveLlmConfigPath,
  type LlmConfig,
  type LlmConfigEntry,
} from './config/llm-config.js';
export { LLM_CONFIG_TEMPLATE, writeLlmConfigTemplate } from './config/llm-config-template.js';
export { createLanguageModel, loadLanguageModel, providerOf, withThinkingFlag, type LoadLanguageModelOptions, type LoadedLanguageModel } from './config/create-language-model.js';

export { createAgent } from './agent/create-agent.js';
export { ORIGINAL_AGENT_NAMES, ORIGINAL_AGENT_TOOLS, createOriginalAgent, cutHistory, isOriginalAgentName, type OriginalAgentName } from './agent/original-agents.js';
export { describeTools, froggySystemPrompt, renderTemplate, simpleSystemPrompt, xmlToolCall, FROGGY_INSTANCE_PROMPT, SIMPLE_INSTANCE_PROMPT, SIMPLE_SYSTEM_PROMPT } from './agent/original-prompts.js';
export { castParameter, parseFunctionCall, type FunctionCallParse } from './text-format/parse-function-call.js';
export { createReplayAgent, type ReplayAgentOptions } from './agent/create-replay-agent.js';
export { AGENT_NAMES, AGENT_PRESETS, isAgentName, type AgentName, type AgentPreset } from './agent/agent-presets.js';
export type { AgentEnv, AgentOptions, AgentRunOptions, DebugAgent, EpisodeOutcome } from './agent/agent-types.js';
export { trimHistory, type TrimInput, type TrimOutput } from './agent/trim-history.js';
export { filterInstructions, visibleTools } from './agent/visible-tools.js';

export {
  TRAJECTORY_FORMAT_VERSION,
  type EpisodeResult,
  type EpisodeStatus,
  type StopReason,
  type Trajectory,
  type TrajectoryReset,
  type TrajectoryResponse,
  type TrajectoryStep,
} from './trajectory/trajectory-types.js';
export { parseTrajectory, readTrajectory } from './trajectory/read-trajectory.js';
export { SUMMARY_FILE, appendSummary, sanitizeTrajectory, taskDirName, trajectoryPath, writeTrajectory } from './trajectory/write-trajectory.js';
export { REDACTED, isSecretKey, redactSecrets } from './trajectory/redact.js';
