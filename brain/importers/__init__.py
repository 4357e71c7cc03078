"""Importers and exporters between brain vaults and other tools' memory formats.

`ai_agents` moves the rjmurillo/ai-agents episodic memory (episode-*.json) and causal graph
(causal-graph.json) into notes and back, losslessly.
"""
