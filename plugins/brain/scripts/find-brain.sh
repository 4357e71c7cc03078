# Sourced by brain-hook and brain-mcp: sets BRAIN_PROGRAM (empty when brain is not installed),
# BRAIN_PLUGIN_VAULT (the plugin's `vault` option, else $BRAIN_VAULT; empty when neither is set) and
# BRAIN_VAULT_FROM (which of the two named it, as the user sets it).
# brain on PATH comes first, so the one a user installed and upgrades is the one that runs; the
# plugin's own data folder is where a user may install it for the plugin alone.
BRAIN_PROGRAM=$(command -v brain 2>/dev/null || true)
if [ -z "$BRAIN_PROGRAM" ] && [ -n "${CLAUDE_PLUGIN_DATA:-}" ] && [ -x "$CLAUDE_PLUGIN_DATA/venv/bin/brain" ]; then
  BRAIN_PROGRAM="$CLAUDE_PLUGIN_DATA/venv/bin/brain"
fi
if [ -n "${CLAUDE_PLUGIN_OPTION_VAULT:-${BRAIN_PLUGIN_VAULT:-}}" ]; then
  BRAIN_PLUGIN_VAULT="${CLAUDE_PLUGIN_OPTION_VAULT:-$BRAIN_PLUGIN_VAULT}"
  BRAIN_VAULT_FROM="the plugin's vault option (/plugin, brain, Configure)"
else
  BRAIN_PLUGIN_VAULT="${BRAIN_VAULT:-}"
  BRAIN_VAULT_FROM="\$BRAIN_VAULT"
fi
BRAIN_INSTALL_HINT="install brain: in a clone of its repository run uv tool install . (or pip install .), or, for this plugin alone, python3 -m venv \"${CLAUDE_PLUGIN_DATA:-<plugin data folder>}/venv\" && \"${CLAUDE_PLUGIN_DATA:-<plugin data folder>}/venv/bin/pip\" install ."
