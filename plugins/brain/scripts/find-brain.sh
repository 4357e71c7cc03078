# Sourced by brain-hook and brain-mcp: sets BRAIN_PROGRAM (empty when brain is not installed) and
# BRAIN_PLUGIN_VAULT (the plugin's `vault` option, else $BRAIN_VAULT; empty when neither is set).
# brain on PATH comes first, so the one a user installed and upgrades is the one that runs; the
# plugin's own data folder is where a user may install it for the plugin alone.
BRAIN_PROGRAM=$(command -v brain 2>/dev/null || true)
if [ -z "$BRAIN_PROGRAM" ] && [ -n "${CLAUDE_PLUGIN_DATA:-}" ] && [ -x "$CLAUDE_PLUGIN_DATA/venv/bin/brain" ]; then
  BRAIN_PROGRAM="$CLAUDE_PLUGIN_DATA/venv/bin/brain"
fi
BRAIN_PLUGIN_VAULT="${CLAUDE_PLUGIN_OPTION_VAULT:-${BRAIN_PLUGIN_VAULT:-${BRAIN_VAULT:-}}}"
BRAIN_INSTALL_HINT="install brain (uv tool install git+<repository URL>, or pip install brain-vault-memory from a clone: see its README), or into this plugin alone: python3 -m venv \"${CLAUDE_PLUGIN_DATA:-<plugin data folder>}/venv\" and pip install brain there"
