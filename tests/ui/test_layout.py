"""The causal graph's layers: causes left of their effects, a cycle's notes side by side."""

from __future__ import annotations

from brain.ui.layout import LAYER_GAP, NODE_WIDTH, draw, layers


def test_each_note_sits_one_layer_past_its_longest_run_of_causes() -> None:
    found = layers(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("a", "c"), ("d", "c")])
    assert found == {"a": 0, "b": 1, "c": 2, "d": 0}


def test_the_notes_of_a_cycle_share_a_layer() -> None:
    found = layers(["a", "b", "c", "e"], [("a", "b"), ("b", "c"), ("c", "b"), ("c", "e")])
    assert found == {"a": 0, "b": 1, "c": 1, "e": 2}


def test_every_edge_gets_a_curve_and_every_node_a_place() -> None:
    drawn = draw(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "b"), ("a", "a")])
    assert set(drawn.curves) == {("a", "b"), ("b", "c"), ("c", "b")}  # a loop on one note is not drawn
    assert drawn.nodes["b"].x == drawn.nodes["c"].x == drawn.nodes["a"].x + NODE_WIDTH + LAYER_GAP
    assert drawn.nodes["b"].y != drawn.nodes["c"].y
    assert drawn.curves["a", "b"].startswith(f"M{drawn.nodes['a'].x + NODE_WIDTH},")
