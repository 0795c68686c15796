"""Where each client snippet goes, in English and Chinese (the desktop app shows these in
its language; the CLI speaks English like the rest of it)."""

from __future__ import annotations

LANGUAGES = ("en", "zh")

_PLACES: dict[str, dict[str, str]] = {
    "en": {
        "claude_shell": "run in a shell (saved in your ~/.claude.json, for all your projects)",
        "claude_project": ".mcp.json at your project's root, for that project only",
        "codex_file": "~/.codex/config.toml",
        "codex_shell": "run in a shell (saved in ~/.codex/config.toml)",
        "deepchat": "Settings → MCP → add server → paste the JSON, then switch the server on "
        "(DeepChat adds a server switched off)",
        "claude_token": "; before starting claude, run `{export}`",
        "codex_token": "; before starting codex, run `{export}`",
    },
    "zh": {
        "claude_shell": "在终端运行（保存在你的 ~/.claude.json，对你的所有项目生效）",
        "claude_project": "项目根目录下的 .mcp.json，只对该项目生效",
        "codex_file": "写入 ~/.codex/config.toml 文件",
        "codex_shell": "在终端运行（保存在 ~/.codex/config.toml）",
        "deepchat": "设置 → MCP → 添加服务器 → 粘贴 JSON，然后打开该服务器的开关"
        "（DeepChat 新添加的服务器默认关闭）",
        "claude_token": "；启动 claude 之前先运行 `{export}`",
        "codex_token": "；启动 codex 之前先运行 `{export}`",
    },
}

DESCRIPTIONS = {
    "en": "Tapemind: long-term memory (call `context` first in every turn)",
    "zh": "Tapemind 长期记忆（每一轮先调用 `context`）",
}


def place(lang: str, key: str, export: str | None = None) -> str:
    """Where the snippet `key` goes; with `export`, the line that sets the token first."""
    texts = _PLACES[lang if lang in _PLACES else "en"]
    return texts[key] + (
        texts[key.split("_")[0] + "_token"].format(export=export) if export else ""
    )
