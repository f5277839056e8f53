import { isAbsolute, resolve } from 'node:path';
import type { ToolPluginV1 } from '@debug-gym/core';
import { discoverMcpServer, type McpServerConfig, type McpServerTools } from '@debug-gym/mcp';
import { ConfigError } from '../config/config-error.js';
import type { McpServerSection, RunConfig } from '../config/config-schema.js';

export interface DiscoverConfiguredOptions {
  /** The config file's folder: a stdio server's default working directory, and what a relative `cwd` is relative to. */
  configDir?: string;
  /** The env's other tool names: an MCP tool may not take one of them. */
  reservedNames?: readonly string[];
  /** Where `${VAR}` in `headers` and `env` is read from. Default process.env. */
  environment?: NodeJS.ProcessEnv;
  /** Told what each server offers. */
  log?: (text: string) => void;
}

/**
 * The tools of every server in `config.mcp_servers`, discovered once for the run (each env then opens
 * its own session with each server at reset). A server that cannot be reached, a `tools` filter that
 * names no tool, or a name taken twice stops the run before any episode, with what to fix.
 */
export async function discoverConfiguredMcpTools(config: Pick<RunConfig, 'mcp_servers'>, options: DiscoverConfiguredOptions = {}): Promise<ToolPluginV1[]> {
  const servers = Object.entries(config.mcp_servers ?? {});
  if (servers.length === 0) return [];
  const taken = new Map<string, string>((options.reservedNames ?? []).map((name) => [name, `the env tool \`${name}\``]));
  const tools: ToolPluginV1[] = [];
  for (const [name, section] of servers) {
    const found: McpServerTools = await discoverMcpServer(mcpServerConfig(name, section, options));
    for (const tool of found.tools) {
      const owner = taken.get(tool.name);
      if (owner) {
        throw new ConfigError(
          `mcp_servers.${name}: its tool \`${found.names[tool.name]}\` would be called \`${tool.name}\`, like ${owner}. Set \`tool_prefix\` on the server (e.g. tool_prefix: ${name.replace(/[^\w-]/g, '_')}_) or leave the tool out with \`tools\`.`,
        );
      }
      taken.set(tool.name, `the tool \`${tool.name}\` of MCP server \`${name}\``);
      tools.push(tool);
    }
    options.log?.(`debug-gym: MCP server ${name} (${found.serverInfo ? `${found.serverInfo.name} ${found.serverInfo.version}, ` : ''}${found.transport}): ${found.tools.map((tool) => tool.name).join(', ') || 'no tools'}`);
  }
  return tools;
}

/** One `mcp_servers` entry as `discoverMcpServer`'s config: camelCase, `${VAR}` expanded, `cwd` resolved. */
export function mcpServerConfig(name: string, section: McpServerSection, options: Pick<DiscoverConfiguredOptions, 'configDir' | 'environment'> = {}): McpServerConfig {
  const environment = options.environment ?? process.env;
  const expand = (values: Record<string, string> | undefined, key: string): Record<string, string> | undefined =>
    values && Object.fromEntries(Object.entries(values).map(([field, value]) => [field, expandVariables(value, environment, `mcp_servers.${name}.${key}.${field}`)]));
  const stdio = section.transport === 'stdio' || (section.command !== undefined && section.url === undefined);
  const cwd = section.cwd === undefined ? (stdio ? options.configDir : undefined) : options.configDir && !isAbsolute(section.cwd) ? resolve(options.configDir, section.cwd) : section.cwd;
  const headers = expand(section.headers, 'headers');
  const env = expand(section.env, 'env');
  return {
    name,
    ...(section.url !== undefined ? { url: section.url } : {}),
    ...(section.transport !== undefined ? { transport: section.transport } : {}),
    ...(headers ? { headers } : {}),
    ...(section.command !== undefined ? { command: section.command } : {}),
    ...(section.args ? { args: section.args } : {}),
    ...(env ? { env } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(section.tool_prefix !== undefined ? { toolPrefix: section.tool_prefix } : {}),
    ...(section.tools ? { tools: section.tools } : {}),
    ...(section.timeout !== undefined ? { timeout: section.timeout } : {}),
  };
}

/** `${VAR}` → the variable's value (a secret stays out of the config file, and so out of the trajectories). */
function expandVariables(value: string, environment: NodeJS.ProcessEnv, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, variable: string) => {
    const found = environment[variable];
    if (found === undefined) throw new ConfigError(`${where} uses \${${variable}}, which is not set in the environment: export it, or write the value.`);
    return found;
  });
}
