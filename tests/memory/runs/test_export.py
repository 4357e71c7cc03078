"""`brain run export`: every line of every format is checked against that format's schema here."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, model_validator

from brain.memory.corpus import Corpus
from brain.memory.runs import service as runs
from brain.memory.runs.note import RunLabels
from brain.vault.vault import Vault
from tests.conftest import DATA, use_lexical

LOAN = json.loads((DATA / "runs" / "loan-42.json").read_text(encoding="utf-8"))


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Function(Strict):
    name: str
    arguments: str

    @model_validator(mode="after")
    def arguments_are_json(self):
        assert isinstance(json.loads(self.arguments), dict)
        return self


class ToolCall(Strict):
    id: str
    type: Literal["function"]
    function: Function


class Message(Strict):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None


class Sft(Strict):
    messages: list[Message]
    source_run_id: str

    @model_validator(mode="after")
    def chat_order(self):
        roles = [m.role for m in self.messages]
        assert roles[:2] == ["system", "user"] and roles[-1] == "assistant" and self.messages[-1].content
        calls = [c.id for m in self.messages if m.tool_calls for c in m.tool_calls]
        answered = [m.tool_call_id for m in self.messages if m.role == "tool"]
        assert calls == answered
        return self


class Dpo(Strict):
    prompt: str
    chosen: str
    rejected: str
    source_run_id: str
    rejected_run_id: str


class Turn(Strict):
    role: Literal["system", "user", "assistant"]
    content: str


class OpenAIInput(Strict):
    messages: list[Turn]


class DpoOpenAI(Strict):
    input: OpenAIInput
    preferred_output: list[Turn]
    non_preferred_output: list[Turn]
    source_run_id: str
    rejected_run_id: str


class Kto(Strict):
    prompt: str
    completion: str
    label: bool
    source_run_id: str


class Process(Strict):
    prompt: str
    completions: list[str]
    labels: list[bool]
    source_run_id: str

    @model_validator(mode="after")
    def one_label_per_step(self):
        assert len(self.completions) == len(self.labels)
        return self


SCHEMAS = {"sft": Sft, "dpo": Dpo, "dpo-openai": DpoOpenAI, "kto": Kto, "process": Process}


def read_lines(path: Path, format: str) -> list[dict]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        SCHEMAS[format].model_validate(line)
    return lines


@pytest.fixture
def labelled(vault: Vault):
    """Runs of two tenants: the same query answered well and badly, an unlabelled one, one in flight."""
    use_lexical(vault)
    corpus = Corpus(vault)
    day = lambda n: datetime(2026, 3, n, tzinfo=UTC)  # noqa: E731
    titles = {}
    for name, tenant, changes, labels, when in (
        ("good", "lending", {}, RunLabels(accepted=True, score=0.9), day(1)),
        (
            "override",
            "lending",
            {
                "query": "should we approve LOAN #42?  credit: 580. income: 95k. amount: 50k",
                "finalContent": "Approved.",
            },
            RunLabels(overridden=True),
            day(2),
        ),
        ("scored", "lending", {"finalContent": "Rejected (short)."}, RunLabels(score=0.6), day(3)),
        ("unlabelled", "lending", {"query": "Another question"}, RunLabels(), day(4)),
        ("flying", "lending", {"finalContent": None}, RunLabels(accepted=True), day(5)),
        ("retail", "retail", {"finalContent": "Escalated to a human."}, RunLabels(escalated=True), day(6)),
    ):
        titles[name] = runs.record_run(corpus, {**LOAN, **changes}, tenant=tenant, labels=labels, now=when).title
    yield vault, corpus, titles


def test_sft_lines_are_chat_examples_of_good_runs_with_their_tool_calls(labelled, brain, tmp_path: Path) -> None:
    _vault, _, titles = labelled
    out = tmp_path / "sft.jsonl"
    result = brain("run", "export", "--format", "sft", str(out))
    assert result.output == (
        f"wrote 2 sft lines from 2 runs to {out}\nleft out: 1 without a label, 1 in flight, 2 labelled bad\n"
    )
    lines = read_lines(out, "sft")
    assert [line["source_run_id"] for line in lines] == [titles["good"], titles["scored"]]
    messages = lines[0]["messages"]
    assert messages[1] == {"role": "user", "content": LOAN["query"]}
    assert messages[2]["tool_calls"][0]["function"] == {
        "name": "lookupCreditBureau",
        "arguments": '{"applicationId": "42"}',
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": LOAN["toolCalls"][0]["resultPreview"]}
    assert messages[4] == {"role": "assistant", "content": LOAN["finalContent"]}


@pytest.mark.parametrize("format", ["dpo", "dpo-openai"])
def test_preference_pairs_come_from_runs_of_the_same_query_and_tenant(
    labelled, brain, tmp_path: Path, format: str
) -> None:
    _, _, titles = labelled
    out = tmp_path / f"{format}.jsonl"
    result = brain("run", "export", "--format", format, str(out))
    assert result.output.splitlines()[1] == "left out: 1 without a label, 1 in flight, 1 without a counterpart to pair"
    lines = read_lines(out, format)
    assert [(line["source_run_id"], line["rejected_run_id"]) for line in lines] == [
        (titles["good"], titles["scored"]),
        (titles["good"], titles["override"]),
    ]
    if format == "dpo":
        assert lines[1] == {
            "prompt": LOAN["query"],
            "chosen": LOAN["finalContent"],
            "rejected": "Approved.",
            "source_run_id": titles["good"],
            "rejected_run_id": titles["override"],
        }
    else:
        assert lines[1]["preferred_output"] == [{"role": "assistant", "content": LOAN["finalContent"]}]
        assert lines[1]["non_preferred_output"] == [{"role": "assistant", "content": "Approved."}]


def test_kto_and_process_labels(labelled, brain, tmp_path: Path) -> None:
    _, _, titles = labelled
    brain("run", "export", "--format", "kto", str(tmp_path / "kto.jsonl"))
    kto = read_lines(tmp_path / "kto.jsonl", "kto")
    assert {line["source_run_id"]: line["label"] for line in kto} == {
        titles["good"]: True,
        titles["override"]: False,
        titles["scored"]: True,
        titles["retail"]: False,
    }
    brain("run", "export", "--format", "process", str(tmp_path / "process.jsonl"), "--tenant", "lending")
    process = {line["source_run_id"]: line for line in read_lines(tmp_path / "process.jsonl", "process")}
    assert process[titles["good"]]["completions"] == [
        "classify-risk → rejected (Marginal credit): creditScore=580, threshold=600",
        "pick-reason → credit-too-low (Credit below floor): creditScore=580, incomeAboveFloor=true",
    ]
    assert process[titles["good"]]["labels"] == [True, True] and process[titles["override"]]["labels"] == [False, False]
    assert titles["retail"] not in process


def test_filters_and_summary(labelled, brain, tmp_path: Path) -> None:
    out = tmp_path / "kto.jsonl"
    summary = json.loads(
        brain(
            "run", "export", "--format", "kto", str(out), "--since", "2026-03-02", "--min-score", "0.7", "--json"
        ).output
    )
    assert {k: summary[k] for k in ("lines", "runs", "unlabelled", "in_flight", "filtered")} == {
        "lines": 2,
        "runs": 2,
        "unlabelled": 1,
        "in_flight": 1,
        "filtered": 2,
    }  # the run of day 1 and the 0.6 score
    assert all(line["source_run_id"] for line in read_lines(out, "kto"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--format", "alpaca"), "error: export format 'alpaca' is not one of sft, dpo, dpo-openai, kto, process\n"),
        (("--format", "sft", "--tenant", "../x"), "error: tenant '../x' may hold only letters"),
        (("--format", "sft", "--since", "last week"), "error: --since 'last week' is not an ISO date"),
        (("--format", "sft", "--min-score", "7"), "error: --min-score: 7 is out of range; give 0 to 1\n"),
    ],
)
def test_bad_export_options_write_nothing(labelled, brain, tmp_path: Path, args, message) -> None:
    out = tmp_path / "out.jsonl"
    result = brain("run", "export", str(out), *args)
    assert result.exit_code == 2 and result.stderr.startswith(message) and result.stderr.count("\n") == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [tmp_path / "vault"]
