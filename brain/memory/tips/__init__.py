"""Tips learned from past work (strategy, recovery, optimization) and the guidelines for a new task.

Modules:
- `service`: learn tips from episodes, list them, guidelines for a task, feedback.
- `learn`: tips from an episode by rules: segment, generalize, classify, attribute.
- `wording`: a tip's words from what a log recorded ("Chose X over Y" -> "Choose X over Y").
- `naming`: a name for a step told by its command line ("Run full repo pytest"): what it runs, and the task.
- `language_model`: learning with a language model (a chat endpoint, or the MCP client's own model).
- `trajectory`: a trajectory an agent reports (thought, action, result) as an episode to learn from.
- `consolidate`: merge tips that say the same thing, losing no source.

What the other layers use:
`service.learn`, `learn_episode`, `list_tips`, `guidelines`, `record_feedback` (`LearnResult`,
`Guideline`, `Guidelines`, the `DEFAULT_*` / `MAX_*` values); `consolidate.consolidate`;
`language_model.endpoint_drafter`, `model_drafter`, `ModelUnusable`; `trajectory.trajectory_episode`.

Nothing is imported here, on purpose: import the module you need, e.g.
`from brain.memory.tips import service`, so importing the package costs
nothing and cannot make an import cycle.
"""
