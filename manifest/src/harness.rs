//! The agent harnesses the registry delivers to and reads drift from: one list, shared by the
//! renderers and the drift check.
use serde::{Deserialize, Serialize};

/// A coding harness the registry renders for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Harness {
    /// Anthropic's Claude Code.
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// Cursor (editor and CLI).
    Cursor,
    /// OpenCode.
    OpenCode,
}

impl Harness {
    /// Every harness, in the order screens list them.
    pub const ALL: [Harness; 6] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::Gemini,
        Harness::Copilot,
        Harness::Cursor,
        Harness::OpenCode,
    ];

    /// Its name on the command line and in URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Copilot => "copilot",
            Harness::Cursor => "cursor",
            Harness::OpenCode => "opencode",
        }
    }

    /// The harness named `s` (as [`Harness::as_str`] spells it).
    pub fn parse(s: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.as_str() == s.trim())
    }

    /// The version rendered for when none is chosen: the one HARNESS_FACTS.md was checked
    /// against (Cursor publishes no version its MCP file depends on).
    pub fn current_version(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "2.1.332",
            Harness::Codex => "0.171.0",
            Harness::Gemini => "0.61.0",
            Harness::Copilot => "1.0.102",
            Harness::Cursor => "1",
            Harness::OpenCode => "1",
        }
    }

    /// Its user config files, relative to the home directory (`/`-separated), which drift
    /// reads: Claude Code's top-level `mcpServers` and `projects["<path>"].mcpServers`, Codex's
    /// `[mcp_servers.<name>]`, Gemini's, Copilot's and Cursor's `mcpServers`, OpenCode's
    /// `mcp.<name>` (1) or `mcp.servers.<name>` (2).
    pub fn user_config_files(self) -> &'static [&'static str] {
        match self {
            Harness::ClaudeCode => &[".claude.json"],
            Harness::Codex => &[".codex/config.toml"],
            Harness::Gemini => &[".gemini/settings.json"],
            Harness::Copilot => &[".copilot/mcp-config.json"],
            Harness::Cursor => &[".cursor/mcp.json"],
            Harness::OpenCode => &[
                ".config/opencode/opencode.json",
                ".config/opencode/opencode.jsonc",
            ],
        }
    }

    /// The name the harness gives `tool` of `server` in its tool rules, or `None` where the
    /// harness exposes none (Cursor).
    ///
    /// Unambiguous for every checked id and tool: ids have no `_` or `.`, and a tool name
    /// has no `(`, `,` or space ([`crate::names`]).
    pub fn tool_name(self, server: &str, tool: &str) -> Option<String> {
        match self {
            Harness::ClaudeCode | Harness::Codex => Some(format!("mcp__{server}__{tool}")),
            Harness::Gemini => Some(format!("mcp_{server}_{tool}")),
            Harness::Copilot => Some(format!("{server}-{tool}")),
            Harness::OpenCode => Some(format!("{server}_{tool}")),
            Harness::Cursor => None,
        }
    }
}
