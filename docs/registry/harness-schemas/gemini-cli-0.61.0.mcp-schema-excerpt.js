// Extracted verbatim from @google/gemini-cli@0.61.0 bundle/chunk-2YTYPKEZ.js (npm tarball). Line ranges noted.
// --- lines 12394-12409: SETTINGS_SCHEMA.mcpServers
var SETTINGS_SCHEMA = {
  // Maintained for compatibility/criticality
  mcpServers: {
    type: "object",
    label: "MCP Servers",
    category: "Advanced",
    requiresRestart: true,
    default: {},
    description: "Configuration for MCP servers.",
    showInDialog: false,
    mergeStrategy: "shallow_merge" /* SHALLOW_MERGE */,
    additionalProperties: {
      type: "object",
      ref: "MCPServerConfig"
    }
  },
// --- lines 13928-13965: SETTINGS_SCHEMA.mcp (serverCommand/allowed/excluded)
  mcp: {
    type: "object",
    label: "MCP",
    category: "MCP",
    requiresRestart: true,
    default: {},
    description: "Settings for Model Context Protocol (MCP) servers.",
    showInDialog: false,
    properties: {
      serverCommand: {
        type: "string",
        label: "MCP Server Command",
        category: "MCP",
        requiresRestart: true,
        default: void 0,
        description: "Command to start an MCP server.",
        showInDialog: false
      },
      allowed: {
        type: "array",
        label: "Allow MCP Servers",
        category: "MCP",
        requiresRestart: true,
        default: void 0,
        description: "A list of MCP servers to allow.",
        showInDialog: false,
        items: { type: "string" }
      },
      excluded: {
        type: "array",
        label: "Exclude MCP Servers",
        category: "MCP",
        requiresRestart: true,
        default: void 0,
        description: "A list of MCP servers to exclude.",
        showInDialog: false,
        items: { type: "string" }
      }
// --- lines 15040-15090: SETTINGS_SCHEMA.admin.mcp (remote admin controls)
        type: "object",
        label: "MCP Settings",
        category: "Admin",
        requiresRestart: false,
        default: {},
        description: "MCP-specific admin settings.",
        showInDialog: false,
        mergeStrategy: "replace" /* REPLACE */,
        properties: {
          enabled: {
            type: "boolean",
            label: "MCP Enabled",
            category: "Admin",
            requiresRestart: false,
            default: true,
            description: "If false, disallows MCP servers from being used.",
            showInDialog: false,
            mergeStrategy: "replace" /* REPLACE */
          },
          config: {
            type: "object",
            label: "MCP Config",
            category: "Admin",
            requiresRestart: false,
            default: {},
            description: "Admin-configured MCP servers (allowlist).",
            showInDialog: false,
            mergeStrategy: "replace" /* REPLACE */,
            additionalProperties: {
              type: "object",
              ref: "MCPServerConfig"
            }
          },
          requiredConfig: {
            type: "object",
            label: "Required MCP Config",
            category: "Admin",
            requiresRestart: false,
            default: {},
            description: "Admin-required MCP servers that are always injected.",
            showInDialog: false,
            mergeStrategy: "replace" /* REPLACE */,
            additionalProperties: {
              type: "object",
              ref: "RequiredMcpServerConfig"
            }
          }
        }
      },
      skills: {
        type: "object",
// --- lines 15114-15275: SETTINGS_SCHEMA_DEFINITIONS.MCPServerConfig / RequiredMcpServerConfig
var SETTINGS_SCHEMA_DEFINITIONS = {
  MCPServerConfig: {
    type: "object",
    description: "Definition of a Model Context Protocol (MCP) server configuration.",
    additionalProperties: false,
    properties: {
      command: {
        type: "string",
        description: "Executable invoked for stdio transport."
      },
      args: {
        type: "array",
        description: "Command-line arguments for the stdio transport command.",
        items: { type: "string" }
      },
      env: {
        type: "object",
        description: "Environment variables to set for the server process.",
        additionalProperties: { type: "string" }
      },
      cwd: {
        type: "string",
        description: "Working directory for the server process."
      },
      url: {
        type: "string",
        description: 'URL for SSE or HTTP transport. Use with "type" field to specify transport type.'
      },
      httpUrl: {
        type: "string",
        description: "Streaming HTTP transport URL."
      },
      headers: {
        type: "object",
        description: "Additional HTTP headers sent to the server.",
        additionalProperties: { type: "string" }
      },
      tcp: {
        type: "string",
        description: "TCP address for websocket transport."
      },
      type: {
        type: "string",
        description: 'Transport type. Use "stdio" for local command, "sse" for Server-Sent Events, or "http" for Streamable HTTP.',
        enum: ["stdio", "sse", "http"]
      },
      timeout: {
        type: "number",
        description: "Timeout in milliseconds for MCP requests."
      },
      trust: {
        type: "boolean",
        description: "Marks the server as trusted. Trusted servers may gain additional capabilities."
      },
      description: {
        type: "string",
        description: "Human-readable description of the server."
      },
      includeTools: {
        type: "array",
        description: "Subset of tools that should be enabled for this server. When omitted all tools are enabled.",
        items: { type: "string" }
      },
      excludeTools: {
        type: "array",
        description: "Tools that should be disabled for this server even if exposed.",
        items: { type: "string" }
      },
      extension: {
        type: "object",
        description: "Metadata describing the Gemini CLI extension that owns this MCP server.",
        additionalProperties: { type: ["string", "boolean", "number"] }
      },
      oauth: {
        type: "object",
        description: "OAuth configuration for authenticating with the server.",
        additionalProperties: true
      },
      authProviderType: {
        type: "string",
        description: "Authentication provider used for acquiring credentials (for example `dynamic_discovery`).",
        enum: Object.values(AuthProviderType)
      },
      targetAudience: {
        type: "string",
        description: "OAuth target audience (CLIENT_ID.apps.googleusercontent.com)."
      },
      targetServiceAccount: {
        type: "string",
        description: "Service account email to impersonate (name@project.iam.gserviceaccount.com)."
      }
    }
  },
  RequiredMcpServerConfig: {
    type: "object",
    description: "Admin-required MCP server configuration (remote transports only).",
    additionalProperties: false,
    properties: {
      url: {
        type: "string",
        description: "URL for the required MCP server."
      },
      type: {
        type: "string",
        description: "Transport type for the required server.",
        enum: ["sse", "http"]
      },
      headers: {
        type: "object",
        description: "Additional HTTP headers sent to the server.",
        additionalProperties: { type: "string" }
      },
      timeout: {
        type: "number",
        description: "Timeout in milliseconds for MCP requests."
      },
      trust: {
        type: "boolean",
        description: "Marks the server as trusted. Defaults to true for admin-required servers."
      },
      description: {
        type: "string",
        description: "Human-readable description of the server."
      },
      includeTools: {
        type: "array",
        description: "Subset of tools enabled for this server.",
        items: { type: "string" }
      },
      excludeTools: {
        type: "array",
        description: "Tools disabled for this server.",
        items: { type: "string" }
      },
      oauth: {
        type: "object",
        description: "OAuth configuration for authenticating with the server.",
        additionalProperties: true
      },
      authProviderType: {
        type: "string",
        description: "Authentication provider used for acquiring credentials.",
        enum: Object.values(AuthProviderType)
      },
      targetAudience: {
        type: "string",
        description: "OAuth target audience (CLIENT_ID.apps.googleusercontent.com)."
      },
      targetServiceAccount: {
        type: "string",
        description: "Service account email to impersonate (name@project.iam.gserviceaccount.com)."
      }
    }
  },
  TelemetrySettings: {
    type: "object",
    description: "Telemetry configuration for Gemini CLI.",
    additionalProperties: false,
    properties: {
      enabled: {
        type: "boolean",
        description: "Enables telemetry emission."
// --- lines 15645-15670: envVarResolver
// packages/cli/src/utils/envVarResolver.ts
function resolveEnvVarsInString(value, customEnv) {
  const envVarRegex = /\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})/g;
  return value.replace(
    envVarRegex,
    (match, varName1, varName2, defaultValue) => {
      const varName = varName1 || varName2 || "";
      if (!varName) {
        return match;
      }
      if (customEnv && typeof customEnv[varName] === "string") {
        return customEnv[varName];
      }
      if (process && process.env) {
        const val = process.env[varName];
        if (typeof val === "string") {
          return val;
        }
      }
      if (defaultValue !== void 0) {
        return defaultValue;
      }
      return match;
    }
  );
}
// --- getSystemSettingsPath (chunk-2YTYPKEZ.js ~16140)
}
function getSystemSettingsPath() {
  if (process2.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]) {
    return process2.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"];
  }
  if (platform() === "darwin") {
    return "/Library/Application Support/GeminiCli/settings.json";
  } else if (platform() === "win32") {
    return "C:\\ProgramData\\gemini-cli\\settings.json";
  } else {
    return "/etc/gemini-cli/settings.json";
  }
}
function getSystemDefaultsPath() {
  if (process2.env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"]) {
    return process2.env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"];
  }
  return path3.join(
    path3.dirname(getSystemSettingsPath()),
    "system-defaults.json"
  );
}
var SettingScope = /* @__PURE__ */ ((SettingScope2) => {
  SettingScope2["User"] = "User";
// --- bundle/chunk-5FZXKDXH.js 391281-391330: applyAdminAllowlist / applyRequiredServers
function applyAdminAllowlist(localMcpServers, adminAllowlist) {
  if (!adminAllowlist || Object.keys(adminAllowlist).length === 0) {
    return { mcpServers: localMcpServers, blockedServerNames: [] };
  }
  const filteredMcpServers = {};
  const blockedServerNames = [];
  for (const [serverId, localConfig] of Object.entries(localMcpServers)) {
    const adminConfig = adminAllowlist[serverId];
    if (adminConfig) {
      const mergedConfig = {
        // eslint-disable-next-line @typescript-eslint/no-misused-spread
        ...localConfig,
        url: adminConfig.url,
        type: adminConfig.type,
        trust: adminConfig.trust
      };
      delete mergedConfig.command;
      delete mergedConfig.args;
      delete mergedConfig.env;
      delete mergedConfig.cwd;
      delete mergedConfig.httpUrl;
      delete mergedConfig.tcp;
      if (adminConfig.includeTools && adminConfig.includeTools.length > 0 || adminConfig.excludeTools && adminConfig.excludeTools.length > 0) {
        mergedConfig.includeTools = adminConfig.includeTools;
        mergedConfig.excludeTools = adminConfig.excludeTools;
      }
      filteredMcpServers[serverId] = mergedConfig;
    } else {
      blockedServerNames.push(serverId);
    }
  }
  return { mcpServers: filteredMcpServers, blockedServerNames };
}
function applyRequiredServers(mcpServers, requiredServers) {
  if (!requiredServers || Object.keys(requiredServers).length === 0) {
    return { mcpServers, requiredServerNames: [] };
  }
  const result2 = { ...mcpServers };
  const requiredServerNames = [];
  for (const [serverId, requiredConfig] of Object.entries(requiredServers)) {
    requiredServerNames.push(serverId);
    result2[serverId] = new MCPServerConfig(
      void 0,
      // command (stdio not supported for required servers)
      void 0,
      // args
      void 0,
      // env
      void 0,
      // cwd
// --- bundle/chunk-5FZXKDXH.js 274832-274834: MCP tool FQN prefix
var MCP_QUALIFIED_NAME_SEPARATOR = "_";
var MCP_TOOL_PREFIX = "mcp_";
function isMcpToolName(name3) {
// --- bundle/chunk-2YTYPKEZ.js 9598-9601: folder trust default
function isFolderTrustEnabled(settings) {
  const folderTrustSetting = settings.security?.folderTrust?.enabled ?? true;
  return folderTrustSetting;
}
