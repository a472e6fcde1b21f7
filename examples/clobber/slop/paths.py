"""Where the app's per-user files live: each overridable by its SLOP_* variable."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_FILES = {
    "credentials": ("SLOP_CREDENTIALS", "credentials.toml"),
    "mcp_env": ("SLOP_MCP_ENV", "mcp_env.toml"),
    "presets": ("SLOP_GLOBAL_PRESETS", "presets.toml"),
    "tool_presets": ("SLOP_GLOBAL_TOOL_PRESETS", "tool_presets.toml"),
    "personas": ("SLOP_GLOBAL_PERSONAS", "personas.toml"),
    "workspace_profiles": ("SLOP_GLOBAL_WORKSPACE_PROFILES", "config_overrides.toml"),
}


def path_of(kind):
    var, default = _FILES[kind]
    return Path(os.environ.get(var) or ROOT / default)


def load_all():
    """Read every per-user file, as the app does at start-up."""
    from slop import settings

    return {kind: settings.load(path_of(kind)) if path_of(kind).exists() else {} for kind in _FILES}
