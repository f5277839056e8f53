import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedDataPath, testPython, testdir } from '@debug-gym/test-utils';
import { afterEach, expect, test } from 'vitest';
import { loadRunConfig, runCommand } from '../src/index.js';
import { startChatServer, toolCallCompletion, type ChatServer } from './helpers/chat-server.js';
import { captureIo } from './helpers/io.js';

const configs = fileURLToPath(new URL('../configs/', import.meta.url));
const FIXED_GET_TOTAL = [
  '        total = sum(self.item_prices[item] * quantity * (1 - self.discounts.get(item, 0) / 100) for item, quantity in self.items.items())',
  '        return round(total, 2)',
].join('\n');

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The shipped configs load for each new agent (all but mini_nightmare are loaded, not run: they download data or need Docker images). */
test.each(['aider.yaml', 'mini_nightmare.yaml', 'swebench.yaml', 'swebench_debug.yaml', 'swesmith.yaml', 'r2egym.yaml', 'swegym.yaml'])('configs/%s loads with --agent froggy_agent and --agent simple_agent', async (file) => {
  for (const agent of ['froggy_agent', 'simple_agent']) {
    const config = await loadRunConfig(join(configs, file), { agent });
    expect(config.agent_type).toBe(agent);
    expect(config.tools).toContain('bash');
  }
});

test.each(['froggy_agent', 'simple_agent'])('debug-gym run configs/mini_nightmare.yaml --agent %s resolves shopping_cart against the local OpenAI-compatible server', async (agent) => {
  const rewrite = { path: 'shopping_cart_code.py', start: 24, new_code: FIXED_GET_TOTAL };
  server = await startChatServer((request) => {
    const answered = request.body.messages.filter((message) => message.role === 'assistant').length;
    if (agent === 'simple_agent') {
      const text = answered === 0 ? `Fix get_total.\n<function=rewrite>\n<parameter=path>${rewrite.path}</parameter>\n<parameter=start>24</parameter>\n<parameter=new_code>\n${FIXED_GET_TOTAL}\n</parameter>\n</function>` : 'Check.\n<function=eval>\n</function>';
      return { id: 'x', object: 'chat.completion', created: 0, model: 'scripted-model', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
    }
    return answered === 0 ? toolCallCompletion('rewrite', rewrite, [10, 5]) : toolCallCompletion('eval', {}, [10, 5]);
  });
  const dir = testdir({ 'llm.yaml': `gpt-4o:\n  model: scripted-model\n  endpoint: ${server.url}\n  api_key: sk-test\n  max_retries: 1\n` });
  const capture = captureIo();
  const results = await runCommand(join(configs, 'mini_nightmare.yaml'), {
    agent,
    params: [
      `base.data_path=${sharedDataPath('mini_nightmare')}`,
      'base.tasks=[shopping_cart]',
      `base.llm_config_file_path=${join(dir, 'llm.yaml')}`,
      `base.terminal={type: local, python: ${testPython}}`,
      `base.output_path=${testdir({})}`,
      'base.fresh_grading=false',
    ],
    io: capture.io,
    handleSigint: false,
  });
  expect(results.tasks.map((task) => [task.task, task.status, task.steps])).toEqual([['shopping_cart', 'resolved', 2]]);
  expect(results.agent).toBe(agent);
  const first = server.requests[0]?.body;
  if (agent === 'froggy_agent') {
    expect(first?.messages[0]?.content).toMatch(/^You are a debugging agent specialized in fixing Python programs\./);
    expect((first?.tools as { function: { name: string } }[]).map((tool) => tool.function.name).sort()).toEqual(['bash', 'eval', 'pdb', 'rewrite', 'submit', 'view']);
  } else {
    expect(first?.tools).toBeUndefined();
    expect(first?.messages[0]?.content).toContain('---- BEGIN FUNCTION #1: bash ----');
  }
  expect(first?.messages[1]?.content).toMatch(agent === 'froggy_agent' ? /^Instructions: / : /^\nI have uploaded a python code repository/);
});
